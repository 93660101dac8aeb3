"""Prints the spec of the first ScalePlan DLRover's job master (0.6.1) writes for a job, as JSON,
computed by the master's own code with no cluster: the job is handed to it where it would read it
from the API server, and the plan is taken where it would create it.

Usage: python master_first_plan.py JOB.json [JOB.json ...]   (on stdout, a JSON object: each
job's file name without `.json` to its plan's `replicaResourceSpecs` and `psHosts`, or to
{"error": "<the exception>"} when the master stops on the job).

What runs is the master's start as `dlrover.python.master.main` runs it for a job on Kubernetes:
`K8sJobArgs.initilize` (scheduler/kubernetes.py) reads the job, `update_context` (master/main.py)
sets the auto-scaling switches, `create_job_manager` and `DistributedJobManager.start`
(master/node/dist_job_manager.py) plan, and `ElasticJobScaler._generate_scale_plan_crd`
(master/scaler/elasticjob_scaler.py) writes the plan. Only three calls of `k8sClient` are replaced:
the read of the job, the list of its pods (none yet) and the create of a custom resource. Each job
runs in a process of its own, as the master's context is a process-wide singleton.
"""

import json
import os
import subprocess
import sys


def first_plan(path):
    from dlrover.python.master import main
    from dlrover.python.master.monitor.perf_monitor import PerfMonitor
    from dlrover.python.master.node.dist_job_manager import create_job_manager
    from dlrover.python.scheduler import kubernetes
    from dlrover.python.scheduler.factory import new_job_args
    from kubernetes import client

    with open(path) as f:
        job = json.load(f)
    job.setdefault("metadata", {}).setdefault("uid", "uid-of-" + job["metadata"]["name"])
    plans = []
    kubernetes.k8sClient.get_custom_resource = lambda self, name, group, version, plural: job
    kubernetes.k8sClient.list_namespaced_pod = lambda self, label_selector: client.V1PodList(items=[])
    kubernetes.k8sClient.create_custom_resource = lambda self, group, version, plural, body: plans.append(body)
    args = new_job_args("k8s", job["metadata"]["name"], job["metadata"].get("namespace", "default"))
    args.initilize()
    main.update_context(args)
    manager = create_job_manager(args, PerfMonitor())
    manager.start()
    spec = next(p["spec"] for p in plans if p["spec"]["replicaResourceSpecs"])
    return {"replicaResourceSpecs": spec["replicaResourceSpecs"], "psHosts": spec["psHosts"]}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        try:
            result = first_plan(sys.argv[2])
        except Exception as e:  # the master stops on it: say how
            result = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(result, sort_keys=True))
        sys.exit(0)
    out = {}
    for path in sys.argv[1:]:
        run = subprocess.run([sys.executable, __file__, "--one", path], capture_output=True, text=True, check=True)
        out[os.path.basename(path).removesuffix(".json")] = json.loads(run.stdout.strip().splitlines()[-1])
    json.dump(out, sys.stdout, indent=2, sort_keys=True)
    print()
