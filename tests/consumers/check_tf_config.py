"""Reads every TF_CONFIG of the golden cases back through TensorFlow's TFConfigClusterResolver:
the resolver must give the task type and index the pod was built for, find that task's address
in the cluster, and see the same cluster.

usage: check_tf_config.py GOLDEN_DIR
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import tensorflow as tf  # noqa: E402

from objects import golden_outputs, tf_configs  # noqa: E402


def check(value, task_type, index):
    os.environ["TF_CONFIG"] = value
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    problems = []
    if (resolver.task_type, resolver.task_id) != (task_type, index):
        problems.append(f"resolver sees task {resolver.task_type}:{resolver.task_id}, the pod is {task_type}:{index}")
    spec = resolver.cluster_spec()
    expected = {job: tasks for job, tasks in json.loads(value)["cluster"].items() if tasks}
    got = {job: tasks for job, tasks in spec.as_dict().items() if tasks}
    if got != expected:
        problems.append(f"resolver cluster {got} differs from {expected}")
    try:
        spec.task_address(task_type, index)
    except ValueError as e:
        problems.append(f"no address for its own task: {e}")
    return problems


def main():
    checked = failures = 0
    for case, doc in golden_outputs(sys.argv[1]):
        found = list(tf_configs(doc))
        if isinstance(doc, str) and doc.startswith("{"):
            task = json.loads(doc)["task"]
            found.append((doc, task["type"], task["index"]))
        for value, task_type, index in found:
            checked += 1
            for problem in check(value, task_type, index):
                failures += 1
                print(f"FAIL {case}: {task_type}:{index}: {problem}")
    if checked == 0:
        print("no TF_CONFIG found")
        return 1
    print(f"{checked} TF_CONFIGs read back by TensorFlow {tf.__version__}'s TFConfigClusterResolver: {failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
