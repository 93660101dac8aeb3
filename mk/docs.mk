# The docs test (tests/docs/docs.test.js): every shell line of the code blocks of README.md and
# docs/*.md, run as written from the repository root with the npm registry unreachable, each exit
# status and every output a page shows checked; a fresh test cluster for each page that talks to one.
# docs/testing.md has the rules a page follows. Included by the top Makefile.
#
#   make test-docs   what the pages' lines need, built first as make builds it anywhere (the npm
#                    package, the preview, the policy, the image, the test cluster, Helm, kubectl),
#                    then every line of every page: their `make ...` lines find them up to date
#                    (DOCS_PAGES="README.md docs/npm.md": only those pages; the others use
#                    README.md's `npm install --global ./pkg`, so name it first)

TEST_TARGETS += test-docs

DOCS_TEST := tests/docs

.PHONY: test-docs

test-docs: npm www policy image master-image cluster helm kubectl ## README.md and docs/*.md: every shell line run as written from the root (npm offline, registry unreachable), exit statuses and shown output checked, cluster lines on a fresh test cluster
	CLUSTER_BIN=$(CLUSTER_BIN) TOOLS=$(TOOLS) DOCS_PAGES="$(DOCS_PAGES)" $(NPM_NODE_TEST) $(DOCS_TEST)/*.test.js
