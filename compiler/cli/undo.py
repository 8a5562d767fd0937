"""`memhub undo`: revert the last apply or uninstall as one unit."""

from __future__ import annotations

import click
from memhub.compiler.cli.options import EXIT_OK


@click.command("undo")
def command() -> int:
    """Revert the last apply or uninstall as one unit (refuses if a later change touched it).

    Run again to step further back, through the last 10 applies and uninstalls: memhub
    keeps the journals and pre-images of those only (older ones are pruned after each
    run; the first-touch originals of `restore --originals` are always kept)."""
    from memhub.compiler.install.engine import undo_install
    from memhub.compiler.install.state import memhub_home
    from memhub.compiler.safewrite.lock import operation_lock

    home = memhub_home()
    with operation_lock(home):
        for path in undo_install(home):
            click.echo(f"restored  {path}")
    return EXIT_OK
