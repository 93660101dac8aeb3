# The browser preview (www/): a page that shows every object, TF_CONFIG and scale plan of a job,
# built from the npm package's browser build. Included by the top Makefile.
#
#   make preview     build www/dist and serve it on 127.0.0.1 (PORT=8000 by default, clear of the controller's 8080 and 8081; 0 picks one)
#   make test-www    the page in headless Chromium (playwright-core): sample, upload, TF_CONFIG,
#                    markers, scale diff, shared link, download; screenshots in target/www-screenshots
#   make bench-www   paste -> table for the 1,000-worker job, and the longest main-thread task
#                    while typing into it (figures printed)

TEST_TARGETS += test-www

WWW := www
# The workspaces' node_modules (mk/npm.mk): www/ is one of them.
WWW_MODULES := $(NPM_MODULES)
WWW_SCREENSHOTS := $(CURDIR)/target/www-screenshots
PORT ?= 8000

.PHONY: www preview test-www bench-www

# esbuild is fast enough (under a second) to rebuild every time.
www: npm $(WWW_MODULES) ## build the browser preview into www/dist
	node $(WWW)/build.js

preview: www ## build the browser preview and serve it on 127.0.0.1:$(PORT)
	node $(WWW)/serve.js $(PORT)

test-www: www npm-chromium ## browser preview in headless Chromium: every feature as a user would use it, screenshots
	cd $(WWW) && SCREENSHOTS=$(WWW_SCREENSHOTS) CHROMIUM=$(NPM_CHROMIUM) node --test --test-reporter=spec test/*.test.js
	@echo "screenshots: $(WWW_SCREENSHOTS)"

bench-www: www npm-chromium ## browser preview: paste -> table for 1,000 workers, longest task while typing (figures printed)
	CHROMIUM=$(NPM_CHROMIUM) node benches/www/paste.js
