"""torchrun.py: the lab's stand-in for `torchrun --standalone
--nproc_per_node N SCRIPT ARGS...` on one node.

Debian 12's torchrun (python3-torch 1.13 under Python 3.11) fails before it
starts a worker (torch.distributed.elastic's to_map() gets None for its
redirects), so the runner starts a job's `torchrun` command through this
file instead.  It does what torchrun does for one node and nothing more:
starts N copies of the script with RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT, sets
OMP_NUM_THREADS=1 when it is unset and N > 1 (torchrun's rule, which the
linter models), and exits with the first failing rank's status.

Owns: the rank processes it starts (it waits for all of them).
"""
import os
import socket
import subprocess
import sys


def main(argv):
    nproc, rest = 1, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--nproc_per_node", "--nproc-per-node"):
            nproc = int(argv[i + 1])
            i += 2
            continue
        if a.startswith(("--nproc_per_node=", "--nproc-per-node=")):
            nproc = int(a.split("=", 1)[1])
        elif a == "--standalone":
            pass
        elif a.startswith("-"):
            raise SystemExit("torchrun.py: option %s is not modelled" % a)
        else:
            rest = argv[i:]
            break
        i += 1
    if not rest:
        raise SystemExit("torchrun.py: no script")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
               WORLD_SIZE=str(nproc), LOCAL_WORLD_SIZE=str(nproc))
    if nproc > 1 and "OMP_NUM_THREADS" not in env:
        env["OMP_NUM_THREADS"] = "1"
    procs = []
    for r in range(nproc):
        procs.append(subprocess.Popen([sys.executable] + rest,
                                      env=dict(env, RANK=str(r), LOCAL_RANK=str(r))))
    rc = 0
    for p in procs:
        p.wait()
        rc = rc or p.returncode
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
