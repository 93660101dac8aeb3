"""What TensorFlow makes of TF_CONFIGs: reads a JSON list of TF_CONFIG strings on standard input,
and writes for each, as a JSON list, what TensorFlow's TFConfigClusterResolver gives (the task's
type and index, the cluster's jobs with their task counts), whether it finds the task's own address
in that cluster, and whether multi_worker_util.is_chief takes the task for the chief.

usage: resolve.py < configs.json > resolved.json
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import tensorflow as tf  # noqa: E402
from tensorflow.python.distribute import multi_worker_util  # noqa: E402


def resolve(value):
    os.environ["TF_CONFIG"] = value
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    spec = resolver.cluster_spec()
    jobs = {job: len(tasks) for job, tasks in spec.as_dict().items() if tasks}
    try:
        spec.task_address(resolver.task_type, resolver.task_id)
        address = True
    except ValueError:
        address = False
    try:
        chief = multi_worker_util.is_chief(spec, resolver.task_type, resolver.task_id)
    except ValueError as e:
        chief = f"refused: {e}"
    return {"type": resolver.task_type, "index": resolver.task_id, "jobs": jobs, "address": address, "chief": chief}


def main():
    configs = json.load(sys.stdin)
    json.dump([resolve(value) for value in configs], sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
