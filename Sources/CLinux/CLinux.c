#define _GNU_SOURCE
#include "CLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Static_assert(CLINUX_EPOLL_CTL_ADD == EPOLL_CTL_ADD && CLINUX_EPOLL_CTL_DEL == EPOLL_CTL_DEL && CLINUX_EPOLL_CTL_MOD == EPOLL_CTL_MOD, "epoll ops");
_Static_assert(CLINUX_EPOLLIN == EPOLLIN && CLINUX_EPOLLOUT == EPOLLOUT && CLINUX_EPOLLONESHOT == EPOLLONESHOT, "epoll events");

int clinux_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int clinux_epoll_ctl(int epoll, int op, int descriptor, uint32_t events, uint64_t identifier) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = identifier;
    return epoll_ctl(epoll, op, descriptor, &event);
}

int clinux_epoll_wait(int epoll, uint64_t *identifiers, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int index = 0; index < count; index++) identifiers[index] = events[index].data.u64;
    return count;
}

int clinux_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int clinux_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int clinux_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int clinux_pipe_capacity(int descriptor) { return fcntl(descriptor, F_GETPIPE_SZ); }

int clinux_futex_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns) {
    struct timespec deadline;
    struct timespec *until = NULL;
    if (deadline_ns != UINT64_MAX) {
        deadline.tv_sec = (time_t)(deadline_ns / 1000000000u);
        deadline.tv_nsec = (long)(deadline_ns % 1000000000u);
        until = &deadline;
    }
    return (int)syscall(SYS_futex, word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, expected, until, NULL, FUTEX_BITSET_MATCH_ANY);
}

int clinux_futex_wake(uint32_t *word, int count) {
    return (int)syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, NULL, 0);
}

__thread void *clinux_thread_slots[CLINUX_THREAD_SLOTS];

int clinux_thread_id(void) { return (int)gettid(); }

int clinux_is_main_thread(void) { return gettid() == getpid(); }

int clinux_pin_thread(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) { errno = EINVAL; return -1; }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int clinux_allowed_cpus(int *cpus, int capacity) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && count < capacity; cpu++) {
        if (CPU_ISSET(cpu, &set)) cpus[count++] = cpu;
    }
    return count;
}

int clinux_allow_cpus(const int *cpus, int count) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int index = 0; index < count; index++) {
        if (cpus[index] < 0 || cpus[index] >= CPU_SETSIZE) { errno = EINVAL; return -1; }
        CPU_SET(cpus[index], &set);
    }
    return sched_setaffinity(0, sizeof set, &set);
}

void clinux_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}

// The profile runtime's entry, linked only into a build instrumented for coverage: weak, so elsewhere it is null.
extern int __llvm_profile_write_file(void) __attribute__((weak));

void clinux_write_coverage(void) {
    if (__llvm_profile_write_file) __llvm_profile_write_file();
}

// MARK: - The Swift concurrency runtime's hooks

extern void *swift_task_enqueueGlobal_hook;
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;
extern void *swift_task_enqueueMainExecutor_hook;

void **clinux_swift_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }
void **clinux_swift_enqueue_global_with_delay_hook(void) { return &swift_task_enqueueGlobalWithDelay_hook; }
void **clinux_swift_enqueue_global_with_deadline_hook(void) { return &swift_task_enqueueGlobalWithDeadline_hook; }
void **clinux_swift_enqueue_main_executor_hook(void) { return &swift_task_enqueueMainExecutor_hook; }

