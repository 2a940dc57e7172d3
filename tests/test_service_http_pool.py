"""The service's waitress dispatcher wakes the worker that went idle last (companion.appliance.http_pool)."""

from __future__ import annotations

import threading
import time

from companion.appliance.http_pool import LastIdleFirst, warm_dispatcher


def _wait_until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_notify_wakes_the_last_waiter_first():
    lock = threading.Lock()
    cv = LastIdleFirst(lock)
    woken: list[int] = []

    def waiter(n: int) -> None:
        with lock:
            cv.wait()
            woken.append(n)

    threads = []
    for n in range(3):
        t = threading.Thread(target=waiter, args=(n,), daemon=True)
        t.start()
        threads.append(t)
        _wait_until(lambda: cv.waiting == n + 1)  # each is waiting before the next starts
    with lock:
        cv.notify()
    _wait_until(lambda: woken == [2])
    with lock:
        cv.notify_all()
    for t in threads:
        t.join(5)
    assert woken[0] == 2 and sorted(woken) == [0, 1, 2]
    assert cv.waiting == 0


class _Task:
    def __init__(self, seen: list[str]):
        self.seen = seen
        self.done = threading.Event()

    def service(self) -> None:
        self.seen.append(threading.current_thread().name)
        self.done.set()

    def cancel(self) -> None:
        self.done.set()


def test_one_request_after_another_stays_on_one_warm_thread():
    dispatcher = warm_dispatcher(8)
    try:
        _wait_until(lambda: dispatcher.queue_cv.waiting == 8)
        seen: list[str] = []
        for _ in range(40):
            task = _Task(seen)
            dispatcher.add_task(task)
            assert task.done.wait(5)
            _wait_until(lambda: dispatcher.queue_cv.waiting == 8)  # back to idle before the next
        # waitress's own FIFO wake-up would have rotated through all 8 threads
        assert len(set(seen)) == 1
    finally:
        assert dispatcher.shutdown(timeout=5)
    assert not dispatcher.threads
