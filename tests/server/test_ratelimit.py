from __future__ import annotations

from app.transport.ratelimit import TokenBucket


def test_bucket_allows_a_burst_then_the_sustained_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=10, burst=5, clock=lambda: now[0])
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]
    now[0] += 0.1  # one token back
    assert bucket.take() and not bucket.take()
    now[0] += 100  # never more than the burst
    assert sum(bucket.take() for _ in range(10)) == 5
