/*
 * Race 1: the lost wake-up in the shared epoll reactor (fixed by 25a0b25 and 87cad1e).
 *
 * The protocol between a lock-free read source, the reactor thread and the source's queue, as rule fd.read drives
 * it: bytes wait in a pipe before activation; the test thread activates the source, waits until the handler has read
 * them, then sends one more byte, which must be read too.
 *
 *   Sources/Contenders/LockFree/LockFreeSource.swift          activate() 99-115, arm() 157-164, deliver() 166-173,
 *                                                             endCall() 186-196
 *   Sources/Contenders/LockFree/LockFreeReactorSource.swift   record() 31-39
 *   Sources/Contenders/LockFree/LockFreeDescriptorSource.swift didActivate() 19-21, descriptorReady() 24-32,
 *                                                             didDeliver() 37, rearm() 40-45
 *   Sources/Contenders/Plumbing/EpollReactor.swift            register() 81-91, rearm() 94-99, report() 116-126,
 *                                                             the loop's EPOLLONESHOT report (run(), ~line 110)
 * The mutex engine (MutexDescriptorSource.swift, MutexReactorSource.record) has the same shape under its lock.
 *
 * Fixed (now): register() adds the watch unarmed; the source records the id, then arms it.
 * HISTORIC (before 87cad1e): register() armed the watch inside; the source stored the id after it returned, and armed
 * nothing itself.
 *
 * Abstractions: one source, one pipe, one registration (id 1); epoll's one-shot arming is the bit `armed` (a re-arm
 * with EPOLL_CTL_MOD while bytes wait reports again, as epoll does); a pipe's bytes are a count; cancel, suspend and
 * end of file are left out (the rule's read path does not use them); the queue's worker is one process.
 */

byte bytes = 2;        /* the pipe: rule fd.read's first chunk waits before activation (2 bytes here) */
byte received = 0;     /* bytes the handler has read */
bool registered = 0;   /* EpollReactor.registrations[1] exists */
bool armed = 0;        /* the EPOLLONESHOT watch is armed */
byte registration = 0; /* LockFreeReactorSource.registration: 0 until recorded */
byte pending = 0;      /* LockFreeReactorSource.pending */
bool isActive = 0;     /* flags & active */
bool inFlight = 0;     /* flags & inFlight */
byte queued = 0;       /* deliveries submitted to the source's queue (queue.async { deliver() }) */
bool sentSecond = 0;

/* LockFreeSource.arm() 157-164: the CAS that takes in-flight when active, idle and data pending. */
inline arm() {
    if
    :: atomic { isActive && !inFlight && pending != 0 -> inFlight = 1; queued++ }
    :: else -> skip
    fi
}

/* LockFreeDescriptorSource.rearm() 40-45, then EpollReactor.rearm() 94-99 (EPOLL_CTL_MOD). */
inline sourceRearm() {
    if
    :: registration != 0 -> atomic { registered -> armed = 1 }  /* registration.load, then reactor.rearm(id) */
    :: else -> skip                     /* guard id != 0: nothing armed */
    fi
}

/* The test thread: pipe.send(chunk[0]) happened already; source.activate(); wait for the bytes; send one more. */
proctype Tester() {
    isActive = 1;                       /* activate(): the CAS that sets active (107) */
    /* didActivate() (LockFreeDescriptorSource 19-21) */
#ifdef HISTORIC
    atomic { registered = 1; armed = 1 } /* register() 81-91, EPOLL_CTL_ADD with the events: armed at once */
    registration = 1;                   /* registration.store(...) after register returned */
#else
    registered = 1;                     /* register() 81-91: EPOLL_CTL_ADD with EPOLLONESHOT only: unarmed */
    registration = 1;                   /* record() 31-33 */
    sourceRearm();                      /* if record(...) { rearm() } */
#endif
    arm();                              /* activate() 113-114: fence, arm() */
    (received == 2);                    /* expectEventually("... bytes read") { received.value == total } */
    atomic { bytes++; sentSecond = 1 }  /* pipe.send(chunk[1]) */
    (received == 3)
}

/* The reactor thread: epoll_wait reports an armed, readable watch once (EPOLLONESHOT disarms it). */
proctype Reactor() {
    byte data;
    do
    :: atomic { armed && bytes > 0 -> armed = 0 };
       /* descriptorReady(id) 24-32: report() measures under the reactor's lock (FIONREAD) */
       data = bytes;
       if
       :: data > 0 -> pending = data;   /* pending.store(data) */
                      arm()             /* merged(): fence, arm() */
       :: else -> atomic { registered -> armed = 1 }  /* .askAgain: reactor.rearm(id) */
       fi
    od
}

/* The source's queue: runs each delivery submitted by arm(). */
proctype Queue() {
    byte data;
    do
    :: atomic { queued > 0 -> queued-- };
       /* deliver() 166-173 */
       atomic { data = pending; pending = 0 };       /* takePending(): exchange */
       if
       :: data != 0 ->                  /* the handler: pipe.receive(Int(data)) */
          atomic { if :: data > bytes -> data = bytes :: else fi; bytes = bytes - data; received = received + data }
       :: else -> skip
       fi;
       /* endCall() 186-196 */
       sourceRearm();                   /* didDeliver(): rearm() */
       inFlight = 0;                    /* flags.bitwiseAnd(~inFlight) */
       arm()                            /* fence, arm() */
    od
}

/* The rule's verdict: when nothing can move any more, every byte sent was read (no lost readiness report). */
proctype Verdict() {
    timeout -> assert(sentSecond && bytes == 0 && received == 3)
}

init {
    atomic { run Tester(); run Reactor(); run Queue(); run Verdict() }
}
