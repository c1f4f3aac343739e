#!/bin/sh
# Builds this tree's HEAD with the session gateway bypassed (Codex starts its Tool MCP servers
# itself, with their credentials), into DIR (default /tmp/codex-mmo-without-gateway), as the
# baseline of `bench/gateway.mjs`'s session figure: BENCH_BASELINE_CLI=DIR/dist/cli/main.js.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/codex-mmo-without-gateway}
rm -rf "$dir"
mkdir -p "$dir"
git -C "$repo" archive HEAD | tar -x -C "$dir"
ln -s "$repo/node_modules" "$dir/node_modules"
launch="$dir/src/features/session/launch.ts"
# the root keeps its rendered home and environment; participants get no gateway
perl -0pi -e 's/rootProcess === undefined\n(\s+)\?/rootProcess === undefined || rootProcess !== undefined\n$1?/; s/\n\s+gateway,\n(\s+readDeny)/\n$1/' "$launch"
grep -q 'rootProcess !== undefined' "$launch" || { echo "cannot bypass the gateway in $launch" >&2; exit 1; }
# the bypass leaves type errors behind (an unreachable branch); the emitted JavaScript is what runs
(cd "$dir" && npx tsc -p tsconfig.build.json >/dev/null) || true
test -f "$dir/dist/cli/main.js"
echo "$dir/dist/cli/main.js"
