"""Runs DLRover's job master (`python -m dlrover.python.master.main ARGS...`) with one change:
its ScalePlan writes are serialised.

In dlrover 0.6.1 `ElasticJobScaler.scale` names each plan `<job>-scaleplan-<index>` and raises the
index only after the plan is created. The master calls it from two threads at start (its first
plan, and the pending-node monitor's periodic empty plan), so both can get the same name; the
second create is refused with 409 and dropped after its retries, and the job may never get its
first plan. That is the master's bug, not the operator's: the test runs the master through this
file so it is not flaky. Usage: python dlrover_master.py ARGS... (the arguments after
`-m dlrover.python.master.main` in the master pod's command).
"""

import runpy
import sys
import threading

from dlrover.python.master.scaler import elasticjob_scaler

_lock = threading.Lock()
_scale = elasticjob_scaler.ElasticJobScaler.scale


def _serialised_scale(self, plan):
    with _lock:
        return _scale(self, plan)


elasticjob_scaler.ElasticJobScaler.scale = _serialised_scale

if __name__ == "__main__":
    sys.argv = ["dlrover.python.master.main", *sys.argv[1:]]
    runpy.run_module("dlrover.python.master.main", run_name="__main__", alter_sys=True)
