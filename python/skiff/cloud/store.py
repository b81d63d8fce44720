"""The job service's state in SQLite (one file under the service root, WAL journal): users
and their hashed tokens, jobs with their spec and state, and each job's events (state
changes, membership changes, notes). The schema is versioned; ``Store`` migrates an older
file forward when it opens it, and refuses a newer one.

    store = Store(os.path.join(root, "cloud.db"))
    token = store.create_user("ada")                  # the token, shown once
    user = store.user_by_token(token)                 # {"name": "ada", "admin": False, ...}
    job = store.add_job("ada", spec)                  # state "queued"
    store.set_state(job["id"], "starting")            # and an event with the time

One Store per thread (sqlite3 connections are not shared); every write is one
transaction."""
import hashlib
import hmac
import json
import secrets
import sqlite3
import time

__all__ = ["Store", "SchemaError", "STATES", "FINAL_STATES", "hash_token"]

STATES = ("queued", "starting", "running", "succeeded", "failed", "cancelled")
FINAL_STATES = ("succeeded", "failed", "cancelled")
# Which state may follow which (a job never leaves a final state).
_NEXT = {
    "queued": ("starting", "cancelled", "failed"),
    "starting": ("running", "succeeded", "failed", "cancelled"),
    "running": ("succeeded", "failed", "cancelled"),
}

# Each entry moves the schema from version i to i + 1.
_MIGRATIONS = [
    """
    CREATE TABLE users (
        name TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        admin INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        max_running INTEGER,
        max_slots INTEGER
    );
    CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL REFERENCES users(name),
        name TEXT NOT NULL,
        spec TEXT NOT NULL,
        priority INTEGER NOT NULL,
        slots INTEGER NOT NULL,
        state TEXT NOT NULL,
        submitted REAL NOT NULL,
        started REAL,
        finished REAL,
        exit_code INTEGER,
        reason TEXT,
        log_tail TEXT,
        runner TEXT
    );
    CREATE INDEX jobs_by_state ON jobs(state, priority DESC, submitted, id);
    CREATE INDEX jobs_by_user ON jobs(user, id);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job INTEGER NOT NULL REFERENCES jobs(id),
        time REAL NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL
    );
    CREATE INDEX events_by_job ON events(job, id);
    """,
    # 2: elastic jobs resized while they run (workers now, the time of the last resize),
    # and the services the autoscaler makes room for
    """
    ALTER TABLE jobs ADD COLUMN workers INTEGER;
    ALTER TABLE jobs ADD COLUMN last_scaled REAL;
    CREATE TABLE services (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL REFERENCES users(name),
        demand INTEGER NOT NULL,
        cpus REAL NOT NULL,
        granted INTEGER NOT NULL DEFAULT 0,
        updated REAL NOT NULL
    );
    """,
]
SCHEMA_VERSION = len(_MIGRATIONS)


class SchemaError(RuntimeError):
    """The database file was written by a newer skiff, or is not skiff's."""


def hash_token(token):
    """The stored form of a token: its SHA-256 (tokens are 256 random bits, so a plain
    hash is enough; no token is kept)."""
    return hashlib.sha256(token.encode()).hexdigest()


def _job(row):
    job = dict(row)
    job["spec"] = json.loads(job["spec"])
    job["runner"] = json.loads(job["runner"]) if job["runner"] else None
    return job


class Store:
    def __init__(self, path):
        self.path = path
        self._db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    def close(self):
        self._db.close()

    # ---- schema

    def _migrate(self):
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SchemaError(f"{self.path}: schema version {version} is newer than this "
                              f"skiff's {SCHEMA_VERSION}; use the skiff that wrote it")
        for v in range(version, SCHEMA_VERSION):
            with self._transaction():
                for statement in _MIGRATIONS[v].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {v + 1}")

    def schema_version(self):
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def _transaction(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind, value, tb):
                db.execute("COMMIT" if kind is None else "ROLLBACK")
                return False

        return _Tx()

    # ---- users

    def create_user(self, name, admin=False, max_running=None, max_slots=None):
        """Adds ``name`` (or gives an existing user a new token); returns the token."""
        token = "skc_" + secrets.token_urlsafe(32)
        with self._transaction():
            self._db.execute(
                "INSERT INTO users(name, token_hash, admin, created, max_running, max_slots) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                "token_hash = excluded.token_hash, admin = excluded.admin, "
                "max_running = excluded.max_running, max_slots = excluded.max_slots",
                (name, hash_token(token), int(bool(admin)), time.time(), max_running,
                 max_slots))
        return token

    def user_by_token(self, token):
        """The user holding ``token``, or None."""
        if not token:
            return None
        digest = hash_token(token)
        row = self._db.execute("SELECT * FROM users WHERE token_hash = ?", (digest,)).fetchone()
        if row is None or not hmac.compare_digest(row["token_hash"], digest):
            return None
        user = dict(row)
        user["admin"] = bool(user["admin"])
        return user

    def user(self, name):
        row = self._db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else dict(row, admin=bool(row["admin"]))

    # ---- jobs

    def add_job(self, user, name, spec, priority, slots):
        now = time.time()
        with self._transaction():
            cur = self._db.execute(
                "INSERT INTO jobs(user, name, spec, priority, slots, state, submitted) "
                "VALUES (?, ?, ?, ?, ?, 'queued', ?)",
                (user, name, json.dumps(spec), priority, slots, now))
            job_id = cur.lastrowid
            self._event(job_id, "state", {"state": "queued"}, now)
        return self.job(job_id)

    def job(self, job_id):
        row = self._db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def jobs(self, user=None, states=None, limit=100, before=None):
        """Jobs newest first, of ``user`` (None: everyone's) in ``states`` (None: any),
        with ids below ``before`` (paging)."""
        where, args = [], []
        if user is not None:
            where.append("user = ?")
            args.append(user)
        if states:
            where.append(f"state IN ({', '.join('?' * len(states))})")
            args.extend(states)
        if before is not None:
            where.append("id < ?")
            args.append(before)
        sql = "SELECT * FROM jobs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(limit)
        return [_job(r) for r in self._db.execute(sql, args)]

    def queued(self):
        """Queued jobs in the order they start: priority (high first), then submission."""
        return [_job(r) for r in self._db.execute(
            "SELECT * FROM jobs WHERE state = 'queued' ORDER BY priority DESC, submitted, id")]

    def active(self):
        """Jobs that hold slots: starting or running."""
        return [_job(r) for r in self._db.execute(
            "SELECT * FROM jobs WHERE state IN ('starting', 'running') ORDER BY id")]

    def set_state(self, job_id, state, **fields):
        """Moves a job to ``state`` (raising ValueError for a transition that cannot
        happen), with other columns (exit_code, reason, log_tail, runner, started,
        finished) and a state event. Returns False, changing nothing, when the job is
        already final (a cancel that raced the job's end)."""
        if state not in STATES:
            raise ValueError(f"unknown job state {state!r}")
        now = time.time()
        with self._transaction():
            row = self._db.execute("SELECT state FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                raise KeyError(job_id)
            if row["state"] in FINAL_STATES:
                return False
            if state not in _NEXT[row["state"]]:
                raise ValueError(f"job {job_id}: {row['state']} cannot become {state}")
            if state == "starting":
                fields.setdefault("started", now)
            if state in FINAL_STATES:
                fields.setdefault("finished", now)
            if "runner" in fields:
                fields["runner"] = json.dumps(fields["runner"])
            cols = ", ".join(f"{k} = ?" for k in ["state", *fields])
            self._db.execute(f"UPDATE jobs SET {cols} WHERE id = ?",
                             (state, *fields.values(), job_id))
            detail = {"state": state}
            for key in ("exit_code", "reason"):
                if fields.get(key) is not None:
                    detail[key] = fields[key]
            self._event(job_id, "state", detail, now)
        return True

    def set_runner(self, job_id, runner):
        with self._transaction():
            self._db.execute("UPDATE jobs SET runner = ? WHERE id = ?",
                             (json.dumps(runner), job_id))

    def set_workers(self, job_id, workers, slots, runner, detail):
        """A running elastic job resized to ``workers`` (holding ``slots``), its backend
        record, and a "scaling" event with ``detail``."""
        now = time.time()
        with self._transaction():
            self._db.execute("UPDATE jobs SET workers = ?, slots = ?, runner = ?, "
                             "last_scaled = ? WHERE id = ?",
                             (workers, slots, json.dumps(runner), now, job_id))
            self._event(job_id, "scaling", detail, now)

    # ---- services (the room the autoscaler keeps for work that is not training)

    def set_service(self, name, owner, demand, cpus):
        """Adds or updates service ``name``'s demand (pods) and CPUs per pod; returns it."""
        with self._transaction():
            self._db.execute(
                "INSERT INTO services(name, owner, demand, cpus, updated) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET demand = excluded.demand, "
                "cpus = excluded.cpus, updated = excluded.updated",
                (name, owner, demand, cpus, time.time()))
        return self.service(name)

    def grant(self, name, pods):
        """How many of service ``name``'s pods have room now."""
        with self._transaction():
            self._db.execute("UPDATE services SET granted = ? WHERE name = ?", (pods, name))

    def service(self, name):
        row = self._db.execute("SELECT * FROM services WHERE name = ?", (name,)).fetchone()
        return None if row is None else dict(row)

    def services(self):
        return [dict(r) for r in self._db.execute("SELECT * FROM services ORDER BY name")]

    def remove_service(self, name):
        with self._transaction():
            self._db.execute("DELETE FROM services WHERE name = ?", (name,))

    def add_event(self, job_id, kind, detail, when=None):
        with self._transaction():
            self._event(job_id, kind, detail, time.time() if when is None else when)

    def count_events(self, job_id, kind):
        return self._db.execute("SELECT COUNT(*) FROM events WHERE job = ? AND kind = ?",
                                (job_id, kind)).fetchone()[0]

    def _event(self, job_id, kind, detail, when):
        self._db.execute("INSERT INTO events(job, time, kind, detail) VALUES (?, ?, ?, ?)",
                         (job_id, when, kind, json.dumps(detail)))

    def events(self, job_id):
        return [{"time": r["time"], "kind": r["kind"], "detail": json.loads(r["detail"])}
                for r in self._db.execute(
                    "SELECT time, kind, detail FROM events WHERE job = ? ORDER BY id", (job_id,))]
