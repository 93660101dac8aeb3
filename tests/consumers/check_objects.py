"""Checks every Pod and Service of the golden cases against the Kubernetes OpenAPI schemas that
kubernetes-validate ships, in strict mode (an unknown field is an error). A gang scheduler's
PodGroup is no Kubernetes kind: tests/e2e/apiserver.test.js (make test-cluster) sends each to a
real API server with the gang schedulers' own CRDs.

usage: check_objects.py GOLDEN_DIR [KUBERNETES_VERSION]
"""
import sys

import kubernetes_validate

from objects import golden_outputs, kube_objects


def main():
    root = sys.argv[1]
    version = sys.argv[2] if len(sys.argv) > 2 else "1.36"
    checked = failures = pod_groups = 0
    for case, doc in golden_outputs(root):
        for obj in kube_objects(doc):
            if obj.get("kind") == "PodGroup":
                pod_groups += 1
                continue
            checked += 1
            try:
                kubernetes_validate.validate(obj, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                failures += 1
                path = ".".join(str(p) for p in e.absolute_path)
                print(f"FAIL {case}: {obj['kind']} {obj['metadata'].get('name')}: {path}: {e.message}")
    if checked == 0:
        print("no objects found under", root)
        return 1
    print(f"{checked - failures} of {checked} objects from the golden cases match the Kubernetes {version} schemas (strict);"
          f" PodGroups, {pod_groups}, are checked against their CRDs by make test-cluster")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
