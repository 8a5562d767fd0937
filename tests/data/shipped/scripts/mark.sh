#!/bin/sh
# Leaves a marker that the plugin's shipped script ran (tests read it).
marker="${MEMHUB_SHIPPED_MARKER:-${TMPDIR:-/tmp}/memhub-shipped-marker}"
printf 'shipped script ran\n' > "$marker"
exit 0
