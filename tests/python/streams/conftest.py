"""Fixtures of the stream tests: a private redis-server on 127.0.0.1 (its append-only file
on, as the exactly-once tests need), started and stopped by each test that asks for it."""
import pytest

from skiff.io import LocalRedis


@pytest.fixture
def redis_server():
    with LocalRedis(appendonly=True) as server:
        yield server
