# The job master's image: DLRover's job master (`dlrover[k8s]`, the version
# tests/e2e/dlrover-requirements.txt pins, with the dependencies it pins), the image the core names
# by default for a job's master pod (elasticjob-dlrover-master:<version>, pulled IfNotPresent). The
# pod's command runs it: `python -m dlrover.python.master.main --platform k8s --namespace NS
# --job_name JOB --port 50001`, as uid 65532.
#
# The build context is target/image/master-context, which `make master-image-context` writes: the
# requirements installed with pip (`pip install --target`) for CPython 3.11, so the build fetches
# nothing. From the repository root:
#
#   make master-image   this file built with buildah; the OCI archive target/image/elasticjob-dlrover-master-0.6.1.tar
#   make master-image-context && docker build -f deploy/master.Dockerfile -t elasticjob-dlrover-master:0.6.1 target/image/master-context
#
# BASE is the image under it, with a CPython 3.11 as `python` (dlrover 0.6.1 imports telnetlib,
# which 3.13 removed): python:3.11-slim-bookworm by default. No image registry is reachable where
# the project is built and tested, so `make master-image` passes a base of its own (mk/image.mk,
# mk/master-image.mk): Debian 12's essential packages with its python3 (3.11) and
# python-is-python3, made with mmdebstrap from the machine's apt sources, imported with `podman
# import`. The packages go on PYTHONPATH, which either base's python reads.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
LABEL org.opencontainers.image.title="elasticjob-dlrover-master" \
      org.opencontainers.image.description="DLRover's job master for ElasticJob jobs, as the elasticjob controller runs it" \
      org.opencontainers.image.source="https://github.com/elasticjob/elasticjob" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY . /opt/dlrover/
ENV PYTHONPATH=/opt/dlrover \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /tmp
USER 65532:65532
CMD ["python", "-m", "dlrover.python.master.main", "--help"]
