// How often does a load preempt a thread inside a short window? The measurement behind StressLoad's design
// (Sources/Harness/StressLoad.swift): a probe thread sleeps 50 µs, wakes, and runs a 10 µs window, 20,000 times;
// a window that took over 60 µs was stalled by someone else. Beside it: SPINNERS threads burning CPU at normal
// priority and PREEMPTERS threads that sleep MIN..MAX µs and spin up to BURST µs, at SCHED_FIFO 1 when RT is 1.
//
//   cc -O2 -pthread scripts/stress/preemption-probe.c -o /tmp/preemption-probe
//   /tmp/preemption-probe SPINNERS PREEMPTERS MIN MAX BURST RT
//   /tmp/preemption-probe 0 0 20 200 100 0     # idle machine
//   /tmp/preemption-probe 2 2 20 200 100 0     # the load at normal priority
//   /tmp/preemption-probe 2 2 20 200 100 1     # the load as arena conform --stress runs it (needs root or CAP_SYS_NICE)
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static int sleep_min, sleep_max, burst_max, real_time;

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void spin_ns(long ns) {
    long end = now_ns() + ns;
    while (now_ns() < end) {}
}

static void *spinner(void *unused) {
    (void)unused;
    while (!stop) spin_ns(100000);
    return 0;
}

static void *preempter(void *seed_pointer) {
    unsigned seed = (unsigned)(long)seed_pointer;
    if (real_time) {
        struct sched_param parameters = {.sched_priority = 1};
        if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0) fprintf(stderr, "no real-time priority\n");
    }
    while (!stop) {
        struct timespec pause = {0, (sleep_min + rand_r(&seed) % (sleep_max - sleep_min + 1)) * 1000L};
        nanosleep(&pause, 0);
        spin_ns((rand_r(&seed) % (burst_max + 1)) * 1000L);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s SPINNERS PREEMPTERS MIN_US MAX_US BURST_US RT\n", argv[0]);
        return 64;
    }
    int spinners = atoi(argv[1]), preempters = atoi(argv[2]);
    sleep_min = atoi(argv[3]);
    sleep_max = atoi(argv[4]);
    burst_max = atoi(argv[5]);
    real_time = atoi(argv[6]);
    if (spinners < 0 || preempters < 0 || spinners + preempters > 64 || sleep_min < 0 || sleep_max < sleep_min || burst_max < 0) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 64;
    }
    pthread_t threads[64];
    int count = 0;
    for (int i = 0; i < spinners; i++) pthread_create(&threads[count++], 0, spinner, 0);
    for (int i = 0; i < preempters; i++) pthread_create(&threads[count++], 0, preempter, (void *)(long)(i + 1));
    usleep(100000);
    int stalled = 0, passes = 20000;
    for (int i = 0; i < passes; i++) {
        struct timespec wait = {0, 50000};
        nanosleep(&wait, 0);
        long start = now_ns();
        spin_ns(10000);
        if (now_ns() - start > 60000) stalled++;
    }
    stop = 1;
    for (int i = 0; i < count; i++) pthread_join(threads[i], 0);
    printf("spinners %d, preempters %d (sleep %d-%d us, burst <= %d us, real-time %d): %d of %d windows stalled (%.2f%%)\n",
           spinners, preempters, sleep_min, sleep_max, burst_max, real_time, stalled, passes, 100.0 * stalled / passes);
    return 0;
}
