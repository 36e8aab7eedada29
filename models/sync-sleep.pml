/*
 * The lock-free engine's contended sync on a serial queue: a caller that finds the queue held waits for it as a futex
 * mutex's waiter does (spins, then sleeps), instead of parking its block in the queue's FIFO.
 *
 *   Sources/Contenders/LockFree/LockFreeQueue+Sync.swift
 *     takeContended()   the waiter: look, take when `scheduled` is clear, else (after the spin) set `syncWaiting`
 *                       and sleep on the state word's upper half; a caller that slept takes with the bit set again,
 *                       and one that leaves for the FIFO passes its wake-up on
 *     giveScheduled()   a sync caller gives the queue back: kept (and scheduled) when jobs are reserved, else
 *                       `scheduled` and `syncWaiting` cleared together, and one sleeper woken if the bit was set
 *   Sources/Contenders/LockFree/LockFreeQueue.swift
 *     enqueue()         reserve a job (count + 1), taking `scheduled` (and ringing the doorbell) if the queue was idle
 *     drain(), relinquish()   the drainer runs reserved jobs, then clears `scheduled` and `syncWaiting` as a give does
 *
 * What must hold: one holder at a time (a sync caller running its block, or the drainer); and no caller sleeps for
 * ever: when nothing can move any more, every caller has finished (a sleeper left behind with the queue free is a lost
 * wake-up, the hazard of every futex lock: Drepper, "Futexes Are Tricky").
 *
 * Seeded variants, each a plausible slip the checker must catch:
 * NO_REARM: a caller that slept takes the queue without setting `syncWaiting` again, so its give wakes nobody while
 *   another caller still sleeps (glibc's lock takes a woken waiter's lock as "contended" for this reason).
 * NO_PASS_ON: a caller that slept and then leaves for the FIFO (a job was reserved meanwhile) drops the wake-up it took.
 *
 * Abstractions: three sync callers, one sync each, and one producer of one async block; a spin of any length (the
 * caller may stop looking at any moment and sleep); the futex's compare-and-sleep is one atomic step, and a wake-up
 * picks any one sleeper; sequentially consistent atomics (the code's CASes are acquire-release on one word).
 */

#define NCALLERS 3

/* The state word: jobs reserved (count) and, in its upper half, `scheduled` and `syncWaiting`. */
byte count = 0;
bool scheduled = 0;
bool waiting = 0;

bool asleep[NCALLERS];      /* on the futex of the upper half */
byte holders = 0;           /* sync callers running their block, and the drainer while it runs a job */
byte finished = 0;          /* sync callers that returned */
byte fifo = 0;              /* sync callers parked in the FIFO (their jobs are counted in `count`) */
bool fifoDone[NCALLERS];    /* the drainer ran this caller's block */
byte fifoOrder[NCALLERS + 1];   /* the FIFO: callers' ids, and 255 for the async block */
byte fifoHead = 0;
byte fifoTail = 0;

#define UPPER (scheduled * 2 + waiting)

/* futex_wake(upper half, 1): wakes one sleeper, any one, if there is one. */
inline wakeOne() {
    atomic {
        if
        :: asleep[0] -> asleep[0] = 0
        :: asleep[1] -> asleep[1] = 0
        :: asleep[2] -> asleep[2] = 0
        :: else -> skip
        fi
    }
}

/* A critical section: nobody else holds the queue. */
inline section() {
    atomic { assert(holders == 0); holders++ };
    holders--
}

/* enqueue(): reserve a job and link it; schedule the queue if it was idle (the doorbell starts a drainer). */
inline enqueue(id) {
    atomic {
        count++;
        fifoOrder[fifoTail] = id;
        fifoTail++;
        if
        :: !scheduled -> scheduled = 1; run drainer()
        :: else -> skip
        fi
    }
}

/* drain() and relinquish(): run the reserved jobs in order, then give the queue back (or ring again). */
proctype drainer() {
    byte job;
    byte k;
    do
    :: atomic { count > 0 -> job = fifoOrder[fifoHead]; fifoHead++; count-- };
       section();
       if
       :: job != 255 -> fifoDone[job] = 1
       :: else -> skip
       fi
    :: atomic {
           count == 0 ->
           if
           :: waiting -> scheduled = 0; waiting = 0; k = 1
           :: else -> scheduled = 0; k = 0
           fi
       };
       if
       :: k == 1 -> wakeOne()
       :: else -> skip
       fi;
       break
    od
}

/* giveScheduled(): keep the queue for the jobs reserved meanwhile, or clear both bits and wake one sleeper. */
inline give(k) {
    atomic {
        if
        ::  count > 0 -> run drainer(); k = 0   /* schedule(): `scheduled` stays, the drainer's */
        :: else ->
           if
           :: waiting -> k = 1
           :: else -> k = 0
           fi;
           scheduled = 0; waiting = 0
        fi
    };
    if
    :: k == 1 -> wakeOne()
    :: else -> skip
    fi
}

proctype caller(byte me) {
    bool slept = 0;
    bool done = 0;
    byte k;
    do
    :: done -> break
    :: else ->
       if
       :: atomic { count == 0 && !scheduled ->   /* take: `scheduled` clear, nothing reserved */
              scheduled = 1;
#ifdef NO_REARM
              skip
#else
              if :: slept -> waiting = 1 :: else -> skip fi
#endif
          };
          section();
          give(k);
          done = 1
       :: atomic { count > 0 -> skip };           /* a job was reserved: into the FIFO behind it */
#ifndef NO_PASS_ON
          if :: slept -> wakeOne() :: else -> skip fi;
#endif
          enqueue(me);
          fifoDone[me] == 1;                       /* waitUntilDone(): the drainer ran the block */
          done = 1
       :: atomic { count == 0 && scheduled -> skip };   /* held: look again (the spin) */
       :: atomic { count == 0 && scheduled && !waiting -> waiting = 1 };   /* the CAS that announces a sleeper */
       :: atomic { scheduled && waiting -> asleep[me] = 1 };  /* futex_wait: the upper half is as seen (a count read
                                                                  before it may be stale by now) */
          !asleep[me];
          slept = 1
       fi
    od;
    finished++
}

/* One async block, submitted at any moment. */
proctype producer() {
    enqueue(255)
}

init {
    atomic {
        run caller(0);
        run caller(1);
        run caller(2);
        run producer()
    }
}

/* When nothing can move any more, every caller has returned: none sleeps with nobody left to wake it. */
active proctype watch() {
    timeout -> assert(finished == NCALLERS)
}
