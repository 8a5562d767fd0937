"""`python -m memhub.schemas`: write the host adapters' names into hub.schema.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memhub.hubspec.vocabulary import bundle_hosts
from memhub.schemas import SCHEMA_FILE, schema_text, with_hosts


def main() -> int:
    path = Path(__file__).with_name(SCHEMA_FILE)
    old = path.read_text("utf-8")
    new = schema_text(with_hosts(json.loads(old), bundle_hosts()))
    if new == old:
        print(f"{SCHEMA_FILE}: host names already match the adapters")
        return 0
    path.write_text(new, "utf-8")  # a file of this source tree, not a person's config
    print(f"{SCHEMA_FILE}: host names set to {', '.join(bundle_hosts())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
