"""The install engine's public face: plan, apply, undo and drift, from their modules.

planner   plan_install, plan_uninstall_plugin, gather_entries, hub_revision
merge     one document: owned entries removed or put, the rest of the file kept
trees     one skill folder
kinds     one class per entry kind (get/put/remove/restore/revert/digest)
editors   a host document being edited (parsed once, edits batched)
changes   TargetChange, InstallPlan, Drift, the claim on entries
apply     apply_install (compare-and-swap, --force), saved plans
undo      undo_install, undo_resolver, current_digest
"""

from __future__ import annotations

from memhub.compiler.install.apply import (
    DriftConflict,
    apply_install,
    check_fresh,
    drift_messages,
    load_saved_plan,
    plan_record,
    prune_order,
    refuse_drift,
)
from memhub.compiler.install.changes import (
    Drift,
    InstallConflict,
    InstallPlan,
    TargetChange,
    TargetParseError,
)
from memhub.compiler.install.editors import PARSE_ERRORS
from memhub.compiler.install.kinds import tree_value_digest
from memhub.compiler.install.planner import (
    gather_entries,
    hub_revision,
    plan_install,
    plan_uninstall_plugin,
)
from memhub.compiler.install.scripts import bare_script_warnings
from memhub.compiler.install.undo import (
    UndoEntryConflict,
    current_digest,
    undo_install,
    undo_resolver,
)

__all__ = [
    "PARSE_ERRORS",
    "Drift",
    "DriftConflict",
    "InstallConflict",
    "InstallPlan",
    "TargetChange",
    "TargetParseError",
    "UndoEntryConflict",
    "apply_install",
    "bare_script_warnings",
    "check_fresh",
    "current_digest",
    "drift_messages",
    "gather_entries",
    "hub_revision",
    "load_saved_plan",
    "plan_install",
    "plan_record",
    "plan_uninstall_plugin",
    "prune_order",
    "refuse_drift",
    "tree_value_digest",
    "undo_install",
    "undo_resolver",
]
