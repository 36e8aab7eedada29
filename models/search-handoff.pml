/*
 * Race 2: the lock-free pool's search hand-off (fixed by 1ea3c18, with 560fd77's hasWork; the parking worker's claim
 * passed on by 89439c5).
 *
 * Rule global.concurrent submits blocks that must all run at the same time (each waits for the others, blocking in
 * a way the engine cannot see). A push made while a worker searches wakes nobody (the searcher will find it); the
 * last searcher to find work must hand the search on, or a second block pushed meanwhile is stranded while its
 * partner blocks its worker and the other worker sleeps.
 *
 *   Sources/Contenders/LockFree/LockFreeWorkerPool.swift
 *     push()              71-86     wakeOne()        89-104    makeRoomForWork() 107-115
 *     hasWork             130-138   work(as:)        154-175   findWork()        192-196 (injection only here)
 *     spin()              214-228   handOffSearch()  233-240   park()            248-260   unpark() 264-268
 *   Sources/Contenders/LockFree/PoolGrowth.swift
 *     startWorker() 17, watchLoop() 56-85 (every 10 ms while wanted: work waits, nobody parked, a worker not
 *     progressing: start a thread; otherwise stand down)
 *
 * Fixed (now): the last searcher hands on from every look that finds work, its final look included: a sleeper is
 * woken, or, with none asleep and work waiting, room is made (a thread, or the watch).
 * HISTORIC (before 1ea3c18): only a look inside the spin loop handed on, and only by waking a sleeper; the final look
 * after leaving the count handed on nothing.
 * And a parking worker whose last look finds work, and whose unpark() says a push claimed it meanwhile (cleared its
 * bit and woke nobody else), hands on the same way: that push's job may wait while this worker runs a blocking one.
 * DROP_CLAIM (before 89439c5, found by this model): park() dropped unpark()'s answer, and the push's claim with it.
 *
 * Abstractions: the pool starts with one or two idle threads (earlier rounds made them); width 2 (the CI machine's cores); at most 3 threads (enough for 2 blocks); every push comes from
 * outside the pool, so jobs go to the injection queue and local queues and stealing play no part; a spin's 64 looks
 * are "take a job whenever one is there, or give up at any moment"; sequentially consistent atomics (the code's
 * fences are SC); a thread beyond the width parks for 1 s in the code, forever here.
 */

#define NJOBS 2
#define WIDTH 2
#define MAXT 3

byte inj = 0;          /* jobs in the injection queue */
byte pushed = 0;
byte started = 0;      /* blocks that began: each then waits until all NJOBS began */
byte searching = 0;    /* LockFreeWorkerPool.searching */
byte parked = 0;       /* LockFreeWorkerPool.parked, a bitmask */
bool asleep[MAXT];     /* LockFreeWorker.word == parked */
byte threads = 0;      /* occupied.nonzeroBitCount; blocked (the engine-visible count) stays 0 */
byte inJob = 0;        /* workers inside a block: they do not progress (the watch reads the kernel state) */
bool watchWanted = 0;

/* findWork() 192-196: a job from the injection queue, if any. */
inline findWork(got) {
    if
    :: atomic { inj > 0 -> inj--; got = 1 }
    :: else -> got = 0
    fi
}

/* wakeOne(observed) 89-104: claim a parked worker (CAS clears its bit), wake it; if the claims all fail, make room. */
inline wakeOne(w) {
    w = 0;
    do
    :: w == MAXT -> w = 0; makeRoom(); break
    :: else ->
       if
       :: atomic { (parked & (1 << w)) != 0 -> parked = parked & ~(1 << w); asleep[w] = 0; w = 0 }; break
       :: else -> w++
       fi
    od
}

/* makeRoomForWork() 107-115: a thread if fewer than the width run, else the watch. */
inline makeRoom() {
    if
    :: atomic { threads < WIDTH -> threads++; run Worker(threads - 1) }   /* growth.startWorker */
    :: else -> watchWanted = 1                                              /* watchWanted.exchange(1); wake */
    fi
}

/* handOffSearch() 233-240 */
inline handOff(w) {
    if
    :: parked != 0 -> wakeOne(w)
    :: else ->
       if
       :: inj > 0 -> makeRoom()         /* hasWork */
       :: else -> skip
       fi
    fi
}

/* The test's thread: pushes the blocks one after the other (push() 71-86). */
proctype Pusher() {
    byte w;
    do
    :: pushed < NJOBS ->
       atomic { inj++; pushed++ };      /* injection.push, then the SC fence */
       if
       :: searching > 0 -> skip         /* a spinner will find it */
       :: else ->
          if
          :: parked != 0 -> wakeOne(w)
          :: else -> makeRoom()
          fi
       fi
    :: else -> break
    od
}

proctype Worker(byte me) {
    byte w;
    bool got;
    bool wasLast;
    bool claimed;
top:                                    /* work(as:) 154-175 */
    got = 0;
    findWork(got);   /* findWork() */
    if :: got -> goto runJob :: else fi;
    /* spin() 214-228 */
    searching++;
    do
    :: atomic { inj > 0 -> inj--; got = 1 };            /* a look that finds work */
       atomic { searching--; wasLast = (searching == 0) };
#ifdef HISTORIC
       if :: wasLast && parked != 0 -> wakeOne(w) :: else fi;  /* wake a sleeper if any, nothing more */
#else
       if :: wasLast -> handOff(w) :: else fi;
#endif
       goto runJob
    :: true -> break                                    /* the 64 looks found nothing */
    od;
    atomic { searching--; wasLast = (searching == 0) };  /* then the SC fence */
    findWork(got);   /* the final look */
#ifndef HISTORIC
    if :: got && wasLast -> handOff(w) :: else fi;
#endif
    if :: got -> goto runJob :: else fi;
    /* park() 248-260 */
    atomic { asleep[me] = 1; parked = parked | (1 << me) };  /* word = parked; parked |= bit; SC fence */
    findWork(got);   /* findWork once more */
    if
    :: got ->                           /* unpark(): clears its bit; true when a push had claimed it meanwhile */
       atomic { claimed = ((parked & (1 << me)) == 0); parked = parked & ~(1 << me); asleep[me] = 0 };
#ifndef DROP_CLAIM
       if :: claimed -> handOff(w) :: else fi;   /* a push claimed it meanwhile: pass the claim on (handOffSearch) */
#endif
       claimed = 0;                     /* DROP_CLAIM: the answer is dropped */
       goto runJob
    :: else -> wasLast = 0; (asleep[me] == 0); goto top  /* futex wait until claimed */
    fi;
runJob:                                  /* the block: waits, unseen by the engine, until every block began */
    atomic { started++; inJob++; got = 0; wasLast = 0 };
    (started == NJOBS);
    inJob--;
    goto top
}

/* PoolGrowth.watchLoop() 56-85, one tick per change it can see. */
proctype Watch() {
    do
    :: atomic { watchWanted && (inj == 0 || parked != 0) -> watchWanted = 0 }  /* stand down */
    :: atomic { watchWanted && inj > 0 && parked == 0 && inJob > 0 && threads < MAXT ->
                threads++; run Worker(threads - 1) }                          /* startWorker(force: true) */
    od
}

/* The rule's verdict: when nothing can move any more, every block began (none stranded while a worker sleeps). */
proctype Verdict() {
    timeout -> assert(started == NJOBS)
}

/* The pool as earlier work left it: one or two threads (WIDTH), idle, at the top of their loop. */
init {
    atomic {
        threads = 1; run Worker(0);
        if :: threads = 2; run Worker(1) :: skip fi;
        run Pusher(); run Watch(); run Verdict()
    }
}
