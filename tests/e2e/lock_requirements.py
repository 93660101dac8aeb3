"""Writes tests/e2e/dlrover-requirements.lock: every package DLRover's job master needs (the pins of
tests/e2e/dlrover-requirements.txt and what they depend on, as wheels), each at the version pip
resolves here and with the sha256 of its wheel, for `pip install --require-hashes`. Run it with
the python3 the master image is built by (3.11, Debian 12's; x86_64), after changing the pins:

    python3 tests/e2e/lock_requirements.py

pip resolves in a venv of its own (`pip install --dry-run --report`), downloading nothing but the
packages' metadata; the wheels' hashes are the index's.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PINS = os.path.join(HERE, "dlrover-requirements.txt")
LOCK = os.path.join(HERE, "dlrover-requirements.lock")

HEADER = """\
# Every package of DLRover's job master (tests/e2e/dlrover-requirements.txt and its dependencies),
# pinned with the sha256 of its wheel for `pip install --require-hashes` (the master image's
# context, mk/master-image.mk, and the tests' DLRover venv, mk/cluster.mk). Written by
# `python3 tests/e2e/lock_requirements.py` with Python 3.11 on x86_64 (the image's); do not edit.
"""


def main():
    with tempfile.TemporaryDirectory() as work:
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        report = os.path.join(work, "report.json")
        subprocess.run(
            [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--only-binary=:all:", "--dry-run", "--ignore-installed", "--report", report, "-r", PINS],
            check=True,
        )
        with open(report) as f:
            installs = json.load(f)["install"]
    lines = []
    for item in sorted(installs, key=lambda i: i["metadata"]["name"].lower()):
        meta, info = item["metadata"], item["download_info"]
        wheel = info["url"].rsplit("/", 1)[-1]
        lines.append(f"{meta['name']}=={meta['version']} --hash=sha256:{info['archive_info']['hashes']['sha256']}  # {wheel}\n")
    with open(LOCK, "w") as f:
        f.write(HEADER + "".join(lines))
    print(f"{LOCK}: {len(lines)} packages")


if __name__ == "__main__":
    main()
