/*
 * Race 3: the lock-free pool's steal window (fixed by b28fb4f).
 *
 * Rule concurrent.start-order: a concurrent queue's blocks start in submission order, each overtaken by at most
 * `slack` later ones (for each block, the earlier-submitted blocks that started after it). A thief takes jobs off the
 * head of another worker's run queue; until it has pushed the extras to its own queue and started the first, it holds
 * them where nobody can run them, and a thief preempted there lets every later job overtake all it holds.
 *
 *   Sources/Contenders/LockFree/LocalRunQueue.swift      pop() (CAS on head), stealHalf() 59-80 (take, then CAS head)
 *   Sources/Contenders/LockFree/LockFreeWorkerPool.swift findWork() 189-194, steal(into:) 196-205 (extras pushed to
 *                                                        the thief's own queue, the first returned), work(as:) 152-171
 *   Sources/Conformance/Rules/QueueRules.swift          ConcurrentStartOrder 107-147 (ticket at the block's start,
 *                                                        the overtaken count, slack 64)
 *
 * Fixed (now): a steal takes half, at most stealLimit (16). HISTORIC (before b28fb4f): half, up to 128 of a full queue.
 *
 * Scaled down (the real ratios: a full queue 256, half 128, slack 64 = a quarter, limit 16): a full queue of N = 16
 * jobs, half 8, SLACK 4 (a quarter), LIMIT 2 (so a steal has extras to push, as the real one does). Two workers (the CI machine's cores): worker 0's
 * queue holds the queue's blocks in submission order (its drain fanned them out), worker 1 steals. No more jobs
 * arrive; the injection queue plays no part. A job's start is its ticket (the block's first instruction), a step of
 * its own after the pop or steal that took it, so a worker may be preempted in between.
 */

#define N 16
#define SLACK 4
#ifdef HISTORIC
#define LIMIT N
#else
#define LIMIT 2
#endif

typedef RunQueue { byte slot[N]; byte head; byte tail }   /* a ring: slot[index % N], as LocalRunQueue's */
RunQueue q[2];
bool started[N];
byte worst = 0;        /* the rule's worst overtaken count so far */

/* The block's first instruction: ticket.add(); the rule counts the earlier blocks not started yet. */
inline start(j) {
    atomic {
        k = 0; over = 0;
        do
        :: k < j -> if :: !started[k] -> over++ :: else fi; k++
        :: else -> break
        od;
        started[j] = 1;
        if :: over > worst -> worst = over :: else fi;
        assert(over <= SLACK);
        k = 0; over = 0; j = 0
    }
}

proctype Worker(byte me) {
    byte j, k, over, take, i;
    byte hand[N];
    do
    :: atomic { q[me].head < q[me].tail -> j = q[me].slot[q[me].head % N]; q[me].head++ };   /* local.pop() */
       start(j)
    :: atomic { q[me].head == q[me].tail ->
       if
       :: q[1 - me].head < q[1 - me].tail ->                 /* stealHalf(): the CAS on the victim's head */
          take = (q[1 - me].tail - q[1 - me].head) - (q[1 - me].tail - q[1 - me].head) / 2;
          if :: take > LIMIT -> take = LIMIT :: else fi;
          i = 0;
          do
          :: i < take -> hand[i] = q[1 - me].slot[q[1 - me].head % N]; q[1 - me].head++; i++
          :: else -> break
          od
       :: else -> take = 0
       fi };
       if
       :: take == 0 -> break                                /* nothing anywhere: the worker would park */
       :: else ->
          i = 1;
          do                                                /* for extra in stolen.dropFirst(): local.push(extra) */
          :: i < take -> atomic { q[me].slot[q[me].tail % N] = hand[i]; q[me].tail++; hand[i] = 0; i++ }
          :: else -> break
          od;
          j = hand[0]; hand[0] = 0; take = 0; i = 0;
          start(j)                                          /* return stolen.first: it runs */
       fi
    od
}

/* Every block starts, and none was overtaken by more than SLACK (asserted at each start). */
proctype Verdict() {
    byte k;
    timeout -> do :: k < N -> assert(started[k]); k++ :: else -> break od
}

init {
    byte k;
    atomic {
        do :: k < N -> q[0].slot[k] = k; k++ :: else -> break od;
        q[0].tail = N;
        run Worker(0); run Worker(1); run Verdict()
    }
}
