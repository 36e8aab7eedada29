/*
 * The actor engine's concurrent queue: while its loop (the queue's actor, draining the mailbox) is parked with nothing
 * queued, a producer hands a plain block to the runners itself instead of waking the loop; a barrier goes through the
 * mailbox and waits, inside the actor, until no block runs.
 *
 *   Sources/Contenders/Actor/ActorQueue.swift
 *     post()              a plain block: if the mailbox is open, count the block started, look at the mailbox again,
 *                         and hand it to the runners if still open; else count it finished again and post it
 *     borrowTurn()        a barrier sync: take the parked loop's turn (closing the mailbox), then run inline if no
 *                         block runs, else give the turn back and post the caller's block
 *   Sources/Contenders/Actor/ActorMailbox.swift
 *     post(), next(), borrowTurn(), returnTurn()   under the mailbox's lock; `open` (parked, nothing queued, the turn
 *                         not borrowed) stored there after every change, read without the lock
 *   Sources/Contenders/Actor/ActorQueueControl.swift
 *     startsOwnBlock(), blockFinished(), waitUntilIdle()   the running count, atomic; the last finish wakes an idle
 *                         waiter under the control lock, where the waiter registered after looking at the count again
 *   Sources/Contenders/Actor/ActorQueueCore.swift
 *     drainConcurrent()   the loop: a block is counted started and handed to the runners; a barrier waits for idle
 *
 * What must hold: a barrier runs alone (no block of the queue runs beside it, whether the barrier runs in the loop or
 * inline in a barrier sync); and nothing is stranded: when nothing can move any more, every block and both barriers
 * ran (a barrier waiting for an idle wake-up nobody sends is the hazard).
 *
 * Seeded variants, each a plausible slip the checker must catch:
 * LOOK_ONCE: the producer looks at the mailbox only before counting its block, so a barrier posted in between finds
 *   the count zero and runs while the block starts (the count must come before the last look: Dekker's order).
 * NO_RECHECK: the finish that brings the count to zero wakes the idle waiter without looking at the count again under
 *   the lock, so a wake-up delayed past a new block's start lets the barrier run beside it.
 *
 * Abstractions: two producers of one plain block each, one barrierAsync, one barrier sync; every block hands to a
 * runner of its own (the runners' FIFO and width do not bear on exclusion); a lock's critical section is one atomic
 * step; sequentially consistent atomics (the code's are).
 */

#define BLOCK 1
#define BARRIER 2
#define NBLOCKS 2

byte running = 0;        /* ActorQueueControl.running */
bool open = 0;           /* ActorMailbox.open */
bool parked = 0;         /* the loop is parked in next() */
bool borrowed = 0;       /* a barrier sync holds the loop's turn */
bool idleWaiting = 0;    /* a barrier waits for the count to reach zero (idleWaiter) */
bool idleWoken = 0;

byte mail[4];            /* the mailbox, FIFO */
byte head = 0;
byte tail = 0;

byte inBlocks = 0;       /* blocks running now */
bool inBarrier = 0;      /* a barrier running now */
byte blocksRan = 0;
byte barriersRan = 0;

#define OPEN (head == tail && parked && !borrowed)

/* blockFinished(): the count down; the finish that leaves none running wakes the idle waiter, under the lock. */
inline finishOne(k) {
    atomic { running--; k = (running == 0) };
    if
    :: k ->
       atomic {
           if
#ifdef NO_RECHECK
           :: idleWaiting -> idleWaiting = 0; idleWoken = 1
#else
           :: idleWaiting && running == 0 -> idleWaiting = 0; idleWoken = 1
#endif
           :: else -> skip
           fi
       }
    :: else -> skip
    fi
}

/* A block running on a runner: never beside a barrier. */
proctype runner() {
    byte k;
    atomic { assert(!inBarrier); inBlocks++ };
    atomic { inBlocks--; blocksRan++ };
    finishOne(k)
}

/* A barrier running alone. */
inline barrier() {
    atomic { assert(inBlocks == 0 && !inBarrier); inBarrier = 1 };
    atomic { inBarrier = 0; barriersRan++ }
}

/* ActorMailbox.post(): queue the mail, wake the parked loop (not while its turn is borrowed: returnTurn wakes it),
   close the mailbox. One locked section. */
inline slowPost(m) {
    atomic { mail[tail] = m; tail++; if :: !borrowed -> parked = 0 :: else -> skip fi; open = OPEN }
}

/* A plain block: ActorQueue.post(). */
proctype producer() {
    byte k;
    if
    :: open ->
       running++;                           /* startsOwnBlock(): counted first */
#ifdef LOOK_ONCE
       run runner()
#else
       if
       :: open -> run runner()              /* still open: straight to the runners */
       :: else ->
          finishOne(k);                     /* counted finished again, and posted */
          slowPost(BLOCK)
       fi
#endif
    :: else -> slowPost(BLOCK)
    fi
}

proctype barrierPoster() {
    slowPost(BARRIER)
}

/* barrierSync(): borrow the parked loop's turn, run inline if idle; otherwise give the turn back and post. */
proctype barrierSyncer() {
    bool took = 0;
    atomic {
        if
        :: head == tail && parked && !borrowed -> borrowed = 1; open = OPEN; took = 1
        :: else -> skip
        fi
    };
    if
    :: took && running == 0 ->              /* runsOwnBlocksNow(needsIdle: true) */
       barrier();
       atomic { borrowed = 0; if :: head != tail -> parked = 0 :: else -> skip fi; open = OPEN }
    :: took && running != 0 ->
       atomic { borrowed = 0; if :: head != tail -> parked = 0 :: else -> skip fi; open = OPEN };
       slowPost(BARRIER)
    :: !took -> slowPost(BARRIER)
    fi
}

/* drainConcurrent(): take mail in order; park when there is none. */
proctype loop() {
    byte m;
    do
    :: atomic { head != tail && !parked && !borrowed -> m = mail[head]; head++ };
       if
       :: m == BLOCK -> running++; run runner()    /* blockStarted(), then hand(): to a runner */
       :: m == BARRIER ->
          /* waitUntilIdle(): look, then register under the lock after looking again */
          if
          :: atomic { running == 0 -> skip }
          :: atomic { running != 0 -> idleWaiting = 1 };
             idleWoken;
             idleWoken = 0
          fi;
          barrier()
       fi
    :: atomic { head == tail && !parked && !borrowed -> parked = 1; open = OPEN };
       !parked                                       /* resumed by a post (or by returnTurn with mail) */
    od
}

init {
    atomic {
        run loop();
        run producer();
        run producer();
        run barrierPoster();
        run barrierSyncer()
    }
}

/* When nothing can move any more, every block and both barriers ran: no barrier waits for a wake-up nobody sends. */
active proctype watch() {
    timeout -> assert(blocksRan == NBLOCKS && barriersRan == 2)
}
