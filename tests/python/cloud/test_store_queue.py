"""The service's database (schema versions, users' tokens, state transitions) and the
queue's order and quotas (``admit``, a pure function)."""
import json
import sqlite3

import pytest

from skiff.cloud.service import Quota, admit
from skiff.cloud.store import _MIGRATIONS, SCHEMA_VERSION, SchemaError, Store, hash_token

SPEC = {"script": "a.py", "args": [], "workers": [1, 1], "nproc": 1, "cpus": 1, "priority": 0,
        "max_run_time": 60, "env": {}, "keep": [], "name": "a.py"}


def test_schema_is_versioned_and_a_newer_file_refused(tmp_path):
    path = str(tmp_path / "cloud.db")
    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION == 2
    store.close()
    assert Store(path).schema_version() == 2  # opening again migrates nothing
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(SchemaError, match="schema version 99 is newer"):
        Store(path)


def test_a_version_1_file_is_migrated_and_keeps_its_jobs(tmp_path):
    """A database of the first schema (no resizable jobs, no services) opens as the
    current one: its users and jobs kept, the new columns empty."""
    path = str(tmp_path / "cloud.db")
    db = sqlite3.connect(path)
    db.executescript(_MIGRATIONS[0] + "; PRAGMA user_version = 1;")
    db.execute("INSERT INTO users(name, token_hash, created) VALUES ('ada', 'h', 0)")
    db.execute("INSERT INTO jobs(user, name, spec, priority, slots, state, submitted) "
               "VALUES ('ada', 'a.py', ?, 0, 1, 'running', 0)", (json.dumps(SPEC),))
    db.commit()
    db.close()
    store = Store(path)
    assert store.schema_version() == 2
    job = store.job(1)
    assert job["user"] == "ada" and job["state"] == "running" and job["workers"] is None
    assert store.services() == []
    store.set_service("web", "ada", 3, 0.5)
    assert store.service("web")["demand"] == 3 and store.service("web")["granted"] == 0


def test_tokens_are_stored_hashed_and_replaced(tmp_path):
    store = Store(str(tmp_path / "cloud.db"))
    token = store.create_user("ada")
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())  # the file and its WAL
    assert token.encode() not in raw and hash_token(token).encode() in raw
    assert store.user_by_token(token)["name"] == "ada"
    assert store.user_by_token("skc_wrong") is None and store.user_by_token("") is None
    new = store.create_user("ada", admin=True)
    assert store.user_by_token(token) is None and store.user_by_token(new)["admin"]


def test_states_move_forward_only(tmp_path):
    store = Store(str(tmp_path / "cloud.db"))
    store.create_user("ada")
    job = store.add_job("ada", "a", SPEC, 0, 1)
    assert job["state"] == "queued"
    with pytest.raises(ValueError, match="queued cannot become running"):
        store.set_state(job["id"], "running")
    store.set_state(job["id"], "starting")
    store.set_state(job["id"], "running", runner={"pid": 1})
    assert store.set_state(job["id"], "succeeded", exit_code=0)
    assert not store.set_state(job["id"], "cancelled")  # final: nothing changes
    job = store.job(job["id"])
    assert job["state"] == "succeeded" and job["runner"] == {"pid": 1}
    assert [e["detail"]["state"] for e in store.events(job["id"])] == [
        "queued", "starting", "running", "succeeded"]
    assert job["started"] <= job["finished"]


def _job(i, user, priority=0, slots=1):
    return {"id": i, "user": user, "priority": priority, "slots": slots}


def test_queue_admits_by_priority_within_free_slots():
    queued = [_job(3, "a", 5), _job(1, "b", 0), _job(2, "c", 0)]  # already in start order
    assert [j["id"] for j in admit(queued, [], 2, lambda u: Quota())] == [3, 1]
    # a job that does not fit holds up the ones behind it (no starving big jobs)
    queued = [_job(1, "a", slots=3), _job(2, "b", slots=1)]
    assert admit(queued, [_job(9, "c", slots=2)], 4, lambda u: Quota()) == []


def test_a_users_quota_holds_only_that_users_jobs():
    quota = {"a": Quota(running=1), "b": Quota(slots=2)}
    active = [_job(10, "a")]
    queued = [_job(1, "a"), _job(2, "b", slots=2), _job(3, "b"), _job(4, "c")]
    chosen = admit(queued, active, 8, lambda u: quota.get(u, Quota()))
    assert [j["id"] for j in chosen] == [2, 4]  # a: one running already; b: 2 slots at most
