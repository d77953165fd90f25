#!/usr/bin/env bash
# The HTML reports in a real browser (headless Chromium, Debian's): the
# compare report of the samples and a single run's report load with no
# console error, draw every chart (a canvas per curve chart) and a heatmap
# per run.  Skipped without chromium.  DMLS_SHOTS=DIR also saves screenshots.
set -u
command -v chromium >/dev/null || { echo "skip: no chromium"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
chrome() { # URL ARGS...: headless, no network, a fresh profile
	local url=$1; shift
	rm -rf "$tmp/profile"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage \
		--user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
		--virtual-time-budget=5000 "$@" "$url"
}
check() { # NAME REPORT RUNS
	local name=$1 html=$2 runs=$3
	chrome "file://$html" --dump-dom >"$tmp/$name.dom" 2>"$tmp/$name.log"
	local errors canvases heat
	if ! grep -q "<body" "$tmp/$name.dom"; then # the browser did not run here
		echo "skip: chromium did not start: $(grep -v '^$' "$tmp/$name.log" | tail -1)"
		exit 77
	fi
	errors=$(grep -Eic "CONSOLE.*(error|uncaught)|Uncaught" "$tmp/$name.log")
	canvases=$(grep -o "<canvas" "$tmp/$name.dom" | wc -l)
	heat=$(grep -o 'class="heat"' "$tmp/$name.dom" | wc -l)
	if [ "$errors" != 0 ] || [ "$canvases" -lt $((runs + 3)) ] || [ "$heat" != "$runs" ]; then
		echo "FAIL $name: $errors console errors, $canvases charts, $heat heatmaps ($runs runs)"
		grep -Ei "console|uncaught" "$tmp/$name.log" | head -3
		fail=1
	else
		echo "ok   $name: no console error, $canvases charts, $heat heatmaps"
	fi
	if [ -n "${DMLS_SHOTS:-}" ]; then
		chrome "file://$html" --window-size=1200,4200 --screenshot="$DMLS_SHOTS/$name.png" \
			>/dev/null 2>&1
	fi
}
"$DMLSCOPE" compare "$SRCDIR/samples" --report "$tmp/compare.html" >/dev/null ||
	{ echo "FAIL compare --report"; exit 1; }
check compare-report "$tmp/compare.html" 3
"$DMLSCOPE" analyze "$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring" --quiet \
	--report "$tmp/run.html" || { echo "FAIL analyze --report"; exit 1; }
check run-report "$tmp/run.html" 1
exit $fail
