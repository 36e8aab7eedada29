/*
 * Race 4: the lock-free group's rounds (fixed by fcc8ad5; the put-back notification settled again by 1b2b0d5).
 *
 * Rule group.reuse, cycle after cycle: enter; async a block that leaves; notify a block that checks the cycle's leave
 * happened; wait for that notify. The party whose leave brings the count to zero takes the notifications and submits
 * them. Preempted between the count's zero and its take, it could take a notify registered after the group was
 * entered again, for the next cycle, and run it before that cycle's leave.
 *
 *   Sources/Contenders/LockFree/LockFreeGroup.swift    begin() 38-43 (count, then rounds), leave() 45-50,
 *                                                      finishOne() 53-68, notify() 70-73, submitIfEmpty() 81-84,
 *                                                      settleLater() 96-108
 *   Sources/Contenders/LockFree/NotificationStack.swift push() 38-47, take(through:putBack:) 60-79 (exchange the whole
 *                                                      stack, keep the due ones, push later ones back), isEmpty 90
 *   Sources/Conformance/Rules/GroupRules.swift          GroupReuse 170-197
 *
 * Fixed (now): a notification carries the round current at its registration; the party ending a round takes that
 * round's and earlier ones, puts later ones back, and settles again (settleLater) in case their round ended meanwhile;
 * settleLater itself takes again while its take put something back.
 * HISTORIC (before fcc8ad5): finishOne took every notification (takeAll); notify submitted everything itself when it
 * read a zero count after its push (submitIfEmpty: fence, count == 0, submitAll).
 *
 * Abstractions: CYCLES cycles (2 are enough for the historic bug); each submitted notification runs in a process of
 * its own (the concurrent queue may start it at any time); the property is checked against the cycle's decrement of
 * the count (the leave), which the rule's `left` counter precedes; waiters and the keep-alive retain are left out;
 * sequentially consistent atomics (the code orders these steps with SC fences and SC loads).
 */

#define CYCLES 3

byte count = 0;          /* outstanding (the futex word) */
byte rounds = 0;         /* LockFreeGroup.rounds */
byte stCycle[CYCLES];    /* the notification stack: which cycle's notify, */
byte stRound[CYCLES];    /* and the round it carries */
byte stN = 0;
bool left[CYCLES];       /* the cycle's leave has counted itself out */
bool notified[CYCLES];   /* the cycle's notify ran */
byte cycle = 0;          /* the test thread's cycle */

/* The notify's block on the concurrent queue: `if left.value != 1 { early.add() }`, then the latch. */
proctype Notify(byte c) {
    assert(left[c]);
    notified[c] = 1
}

/* NotificationStack.take(through: r, putBack:) 60-79: exchange the whole stack (one step), then keep the notifications of round
 * r or earlier in `due`, pushing later ones back one at a time (each a CAS). */
inline take(r) {
    atomic {
        ln = 0;
        do :: stN > 0 -> stN--; lc[ln] = stCycle[stN]; lr[ln] = stRound[stN]; stCycle[stN] = 0; stRound[stN] = 0; ln++
           :: else -> break od
    };
    do
    :: ln > 0 ->
       ln--;                             /* oldest first: the exchange read the stack newest first */
       if
       :: lr[ln] <= r -> dc[dn] = lc[ln]; dn++
       :: else -> atomic { stCycle[stN] = lc[ln]; stRound[stN] = lr[ln]; stN++ }; back = 1
       fi;
       lc[ln] = 0; lr[ln] = 0
    :: else -> break
    od
}

/* settleLater() 96-108: the notifications of ended rounds, when no round runs now; a take that put notifications back
 * settles again, since a party that found the stack empty while this one held them (notify's submitIfEmpty, a round's
 * end) may have been the one to run them.
 * SETTLE_ONCE (before 1b2b0d5, found by this model): one take, whatever it put back. */
inline settleLater() {
    do
    :: stN == 0 -> break                 /* notifications.isEmpty */
    :: else ->
       cur = rounds;                     /* the round first, */
       if
       :: count == 0 -> take(cur)        /* then the count */
       :: else -> cur = 0; break
       fi;
       cur = 0;
#ifndef SETTLE_ONCE
       if :: back -> back = 0 :: else -> break fi
#else
       back = 0; break
#endif
    od
}

/* `for submit in due { submit() }`: queue.async of each notify's block. */
inline submitDue() {
    do :: dn > 0 -> dn--; run Notify(dc[dn]); dc[dn] = 0 :: else -> break od
}

/* The async block of cycle c: left.add(); group.leave() -> finishOne() 53-68. */
proctype Leaver(byte c) {
    byte lc[CYCLES], lr[CYCLES], ln, dc[CYCLES], dn, cur, round;
    bool zero, back;
    round = rounds;                      /* let round = rounds.load (fixed) */
    atomic { count--; zero = (count == 0); left[c] = 1 };
    if
    :: zero ->                           /* then the SC fence */
#ifdef HISTORIC
       take(255)                         /* takeAll() */
#else
       if
       :: stN == 0 -> skip               /* notifications.isEmpty ? [] : */
       :: else -> take(round); back = 0; settleLater()   /* take(through: round) + settleLater() */
       fi
#endif
       ;
       submitDue()
    :: else -> skip
    fi
}

/* The test thread (GroupReuse.check). */
proctype Tester() {
    byte lc[CYCLES], lr[CYCLES], ln, dc[CYCLES], dn, cur, mine;
    bool first, back;
    do
    :: cycle < CYCLES ->
       atomic { first = (count == 0); count++ };     /* group.enter() -> begin(): the count, */
       if :: first -> rounds++ :: else fi;           /* then the round */
       first = 0;
       run Leaver(cycle);                            /* queue.async { left.add(); group.leave() } */
       /* group.notify(queue:) 70-73 */
#ifdef HISTORIC
       atomic { stCycle[stN] = cycle; stN++ };       /* notifications.push */
       if                                            /* submitIfEmpty: fence, count == 0 -> submitAll() */
       :: count == 0 -> take(255); submitDue()
       :: else -> skip
       fi;
#else
       mine = rounds;                                /* round: rounds.load */
       atomic { stCycle[stN] = cycle; stRound[stN] = mine; stN++ };   /* notifications.push(..., round:) */
       mine = 0;
       settleLater(); submitDue();                   /* submitIfEmpty: fence, settleLater() */
#endif
       (notified[cycle]);                            /* notified.wait(.seconds(5)) */
       cycle++
    :: else -> break
    od
}

/* Every notify ran (none lost), checked when nothing can move any more. */
proctype Verdict() {
    timeout -> assert(cycle == CYCLES)
}

init {
    atomic { run Tester(); run Verdict() }
}
