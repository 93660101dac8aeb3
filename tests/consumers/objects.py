"""Walks the golden outputs and yields every Kubernetes object and TF_CONFIG they hold."""
import json
import pathlib


def golden_outputs(root):
    for case in sorted(pathlib.Path(root).iterdir()):
        out = case / "output.json"
        if out.is_file():
            yield case.name, json.loads(out.read_text())


def kube_objects(doc):
    """Pods and services in a rendered List or in the actions of a plan's phases."""
    if not isinstance(doc, dict):
        return
    if "actions" in doc:
        # A plan keeps its actions in `phases`; a flat list is a shape this walker would miss.
        raise ValueError("a plan with a flat `actions` list: the walker reads `phases`")
    if doc.get("kind") == "List":
        yield from doc.get("items", [])
    for phase in doc.get("phases", []):
        for action in phase["actions"]:
            for key in ("pod", "service"):
                if key in action:
                    yield action[key]


def env_value(container, name):
    for var in container.get("env", []):
        if var.get("name") == name:
            return var.get("value")
    return None


def tf_configs(doc):
    """(tf_config, task type, rank) of every task pod, from its env and labels."""
    for obj in kube_objects(doc):
        if obj.get("kind") != "Pod":
            continue
        labels = obj["metadata"].get("labels", {})
        containers = obj["spec"]["containers"]
        value = env_value(containers[0], "TF_CONFIG")
        if value is not None:
            yield value, labels["elasticjob.dlrover/replica-type"], int(labels["elasticjob.dlrover/rank-index"])
