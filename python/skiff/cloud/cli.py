"""``skiff cloud VERB`` (also ``python -m skiff.cloud VERB``): the job service and its
command-line client.

    skiff cloud serve [--host 127.0.0.1] [--port 8050] [--root DIR] [--slots N]
                      [--autoscale skiff|edl|off]
    skiff cloud token create USER [--admin] [--root DIR]      # prints the token
    skiff cloud login --server URL --token TOKEN
    skiff cloud submit train.py [--workers 1] [--nproc 1] [--dir .] [--follow] [-- ARGS...]
    skiff cloud list | status JOB | logs JOB [-f] | cancel JOB | artifacts JOB [--download DIR]
    skiff cloud notebook [JUPYTER ARGS...]   # JupyterLab with %load_ext skiff.cloud.notebook
    skiff cloud simulate edl|pollux [--policy P] [--out DIR]   # the cluster simulator

The client verbs take --server/--token, else SKIFF_CLOUD_URL / SKIFF_CLOUD_TOKEN, else
what `login` saved. `submit --follow` prints the job's output as it runs and exits with
the job's exit code."""
import argparse
import json
import os
import sys
import time

from .autoscaler import Config
from .client import Client, CloudError, save_login
from .notebook import start_jupyterlab
from .simulator.command import add_verb as add_simulate_verb
from .store import Store

__all__ = ["main"]

DEFAULT_ROOT = os.path.join(os.path.expanduser("~"), ".local", "share", "skiff", "cloud")


def _client(args):
    return Client(args.server, args.token)


def _print_job(job):
    print(json.dumps(job, indent=2, sort_keys=True))


def _follow(client, job_id):
    """Prints the job's output until it ends; returns its exit code."""
    stream = client.follow(job_id)
    while True:
        try:
            _, line = next(stream)
        except StopIteration as end:
            result = end.value or {}
            break
        print(line, flush=True)
    code = result.get("exit_code")
    state = result.get("state")
    print(f"skiff cloud: job {job_id} {state}" + (f" (exit code {code})" if code is not None
                                                 else ""), file=sys.stderr)
    if state == "succeeded":
        return 0
    return code if isinstance(code, int) and code > 0 else 1


def _serve(args):
    from .server import serve  # noqa: PLC0415  (aiohttp is needed only to serve)
    from .service import Quota  # noqa: PLC0415  (with the server)
    autoscale = None if args.autoscale == "off" else Config(
        policy=args.autoscale, interval=args.scale_interval, cooldown=args.scale_cooldown)
    try:
        serve(args.root, host=args.host, port=args.port, slots=args.slots,
              quota=Quota(args.quota_jobs, args.quota_slots), max_upload=args.max_upload,
              log_limit=args.log_limit, line_limit=args.line_limit, autoscale=autoscale)
    except OSError as e:
        print(f"skiff cloud: cannot listen on {args.host}:{args.port}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    return 0


def _token(args):
    os.makedirs(args.root, exist_ok=True)
    store = Store(os.path.join(args.root, "cloud.db"))
    try:
        print(store.create_user(args.user, admin=args.admin, max_running=args.max_jobs,
                                max_slots=args.max_slots))
    finally:
        store.close()
    return 0


def _submit(args):
    client = _client(args)
    kind = ("module" if args.program.startswith("-m=") else
            "program" if args.program.endswith(".skmodel") else "script")
    what = {kind: args.program[3:] if kind == "module" else args.program}
    env = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep:
            raise CloudError(0, f"--env wants NAME=VALUE, got {item!r}")
        env[key] = value
    started = time.monotonic()
    job = client.submit(**what, args=args.args, directory=args.dir,
                        workers=args.workers, nproc=args.nproc, cpus=args.cpus,
                        priority=args.priority, max_run_time=args.max_time, env=env,
                        keep=args.keep, board_logdir=args.board_logdir, name=args.name)
    print(f"skiff cloud: job {job['id']} ({job['name']}) queued in "
          f"{time.monotonic() - started:.2f} s", file=sys.stderr)
    if args.follow:
        return _follow(client, job["id"])
    print(job["id"])
    return 0


def _list(args):
    jobs = _client(args).jobs(state=args.state, user=args.user, limit=args.limit)
    for j in jobs:
        code = "" if j["exit_code"] is None else f" exit {j['exit_code']}"
        print(f"{j['id']:>6}  {j['state']:<10} {j['user']:<12} {j['name']}{code}")
    return 0


def _logs(args):
    client = _client(args)
    if args.follow:
        return _follow(client, args.job)
    first = 0
    while True:
        page = client.log(args.job, first=first, count=5000)
        for _, line in page["lines"]:
            print(line)
        if not page["lines"]:
            return 0
        first = page["next"]


def _artifacts(args):
    client = _client(args)
    files = client.artifacts(args.job)
    for f in files:
        if args.download:
            dest = os.path.join(args.download, f["path"])
            client.download(args.job, f["path"], dest)
            print(dest)
        else:
            print(f"{f['size']:>12}  {f['path']}")
    return 0


def _notebook(args):
    return start_jupyterlab(args.jupyter_args, args.server, args.token)


def _operator(args):
    from .operator.main import run  # noqa: PLC0415  (the kubernetes client: the operator's only)
    return run(namespace=args.namespace, kubeconfig=args.kubeconfig, policy=args.policy,
               etcd=args.etcd)


def _parser():
    p = argparse.ArgumentParser(prog="skiff cloud", description=__doc__.split("\n\n")[0])
    verbs = p.add_subparsers(dest="verb", required=True)

    def client_options(q):
        q.add_argument("--server", help="the service's URL (default: SKIFF_CLOUD_URL, login)")
        q.add_argument("--token", help="your token (default: SKIFF_CLOUD_TOKEN, login)")

    s = verbs.add_parser("serve", help="run the job service")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8050, help="port (default 8050; 0: a free one)")
    s.add_argument("--root", default=DEFAULT_ROOT, help="where the database and jobs live")
    s.add_argument("--slots", type=int, help="slots the jobs share (default: one per core)")
    s.add_argument("--quota-jobs", type=int, help="running jobs per user (default: no bound)")
    s.add_argument("--quota-slots", type=int, help="slots per user (default: no bound)")
    s.add_argument("--max-upload", type=int, help="bytes of an uploaded archive")
    s.add_argument("--log-limit", type=int, help="bytes of output kept per job (default 64 MiB)")
    s.add_argument("--line-limit", type=int, help="bytes of one output line (default 16 KiB)")
    s.add_argument("--autoscale", choices=["skiff", "edl", "off"], default="skiff",
                   help="the autoscaler's policy for elastic jobs (default skiff; off: they "
                   "keep the workers they start with; docs/edl.md)")
    s.add_argument("--scale-interval", type=float, default=5.0,
                   help="seconds between the autoscaler's passes (and after each event)")
    s.add_argument("--scale-cooldown", type=float, default=10.0,
                   help="seconds between two resizes of one job (a world re-forms each time)")
    s.set_defaults(run=_serve)

    t = verbs.add_parser("token", help="manage users' tokens (on the service's machine)")
    tv = t.add_subparsers(dest="token_verb", required=True)
    tc = tv.add_parser("create", help="create USER (or replace its token); prints the token")
    tc.add_argument("user")
    tc.add_argument("--admin", action="store_true", help="sees and cancels every job")
    tc.add_argument("--max-jobs", type=int, help="this user's running jobs")
    tc.add_argument("--max-slots", type=int, help="this user's slots")
    tc.add_argument("--root", default=DEFAULT_ROOT)
    tc.set_defaults(run=_token)

    lg = verbs.add_parser("login", help="save the server and token for later commands")
    lg.add_argument("--server", required=True)
    lg.add_argument("--token", required=True)
    lg.set_defaults(run=lambda a: print(save_login(a.server, a.token)) or 0)

    sb = verbs.add_parser("submit", help="send a script and its directory as a job")
    sb.add_argument("program", help="the script (a path in --dir), -m=MODULE, or a saved "
                    "program (a .skmodel in --dir, run by skiff run with the args)")
    sb.add_argument("args", nargs="*", help="the program's arguments (after --, those that "
                    "start with a dash: submit train.py --follow -- --epochs 3)")
    sb.add_argument("--dir", default=".", help="the directory to send (default: .)")
    sb.add_argument("--workers", default="1", help="N or MIN:MAX (default 1)")
    sb.add_argument("--nproc", type=int, default=1, help="processes per worker")
    sb.add_argument("--cpus", type=int, default=1, help="CPUs per process")
    sb.add_argument("--priority", type=int, default=0, help="higher starts first")
    sb.add_argument("--max-time", type=int, help="seconds the job may run")
    sb.add_argument("--env", action="append", default=[], help="NAME=VALUE (repeatable)")
    sb.add_argument("--keep", action="append", default=[], help="a path to keep (repeatable)")
    sb.add_argument("--board-logdir", help="the job's skiff board logdir (kept)")
    sb.add_argument("--name", help="the job's name (default: the script's)")
    sb.add_argument("--follow", "-f", action="store_true",
                    help="print the output live; exit with the job's exit code")
    client_options(sb)
    sb.set_defaults(run=_submit)

    ls = verbs.add_parser("list", help="your jobs, newest first")
    ls.add_argument("--state", help="only these states (comma-separated)")
    ls.add_argument("--user", help="an admin: this user's jobs")
    ls.add_argument("--limit", type=int, default=50)
    client_options(ls)
    ls.set_defaults(run=_list)

    for verb, run, text in (("status", lambda a: _print_job(_client(a).job(a.job)) or 0,
                             "a job's state, times and events"),
                            ("cancel", lambda a: _print_job(_client(a).cancel(a.job)) or 0,
                             "stop a job")):
        v = verbs.add_parser(verb, help=text)
        v.add_argument("job", type=int)
        client_options(v)
        v.set_defaults(run=run)

    lo = verbs.add_parser("logs", help="a job's output")
    lo.add_argument("job", type=int)
    lo.add_argument("--follow", "-f", action="store_true", help="until the job ends")
    client_options(lo)
    lo.set_defaults(run=_logs)

    ar = verbs.add_parser("artifacts", help="the files a job kept")
    ar.add_argument("job", type=int)
    ar.add_argument("--download", metavar="DIR", help="copy them into DIR")
    client_options(ar)
    ar.set_defaults(run=_artifacts)

    nb = verbs.add_parser("notebook", help="start JupyterLab with the %%%%skiff_job cell magic "
                          "(other options go to JupyterLab)")
    client_options(nb)
    nb.set_defaults(run=_notebook)

    add_simulate_verb(verbs)  # skiff cloud simulate edl|pollux (simulator/command.py)

    op = verbs.add_parser("operator", help="the Kubernetes operator of SkiffJobs "
                          "(docs/kubernetes.md)")
    opv = op.add_subparsers(dest="operator_verb", required=True)
    opr = opv.add_parser("run", help="reconcile SkiffJobs until SIGTERM or Ctrl-C")
    opr.add_argument("--namespace", help="only this namespace's SkiffJobs (default: all)")
    opr.add_argument("--kubeconfig", help="a kubeconfig file (default: the pod's service "
                     "account in a cluster, else ~/.kube/config)")
    opr.add_argument("--policy", choices=("edl", "skiff"), default="skiff",
                     help="the autoscaler's policy (default skiff)")
    opr.add_argument("--etcd", help="HOST:PORT the workers meet at (default "
                     "skiff-etcd.skiff-system.svc:2379)")
    opr.set_defaults(run=_operator)
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = []
    if "--" in argv:  # what follows is the program's (argparse's own "--" rules differ
        cut = argv.index("--")  # by version inside subcommands)
        argv, rest = argv[:cut], argv[cut + 1:]
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if args.verb == "notebook":  # JupyterLab's own options and arguments
        args.jupyter_args, rest = unknown + rest, []
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if rest:
        if args.verb != "submit":
            print("skiff cloud: '--' (the program's arguments) belongs to submit",
                  file=sys.stderr)
            return 2
        args.args = list(args.args) + rest
    try:
        return args.run(args)
    except CloudError as e:
        print(f"skiff cloud: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
