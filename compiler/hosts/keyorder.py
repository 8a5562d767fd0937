"""A hub's own key order for the JSON documents memhub writes (`overrides.<host>.key_order`).

Adapters write their documents in a fixed order. A published plugin may order its manifest or
marketplace file otherwise, and a round trip must give that order back, so a hub can name it:

    overrides:
      claude:
        key_order:
          manifest: [name, description, version, {author: [name, email]}]
          marketplace: [$schema, name, version, description, owner, {plugins: [name, source]}]

An order is a list of keys; an item `{key: [...]}` orders that key's object too (or each object
of its list). The keys it names come first, in its order; the others follow in the adapter's
order; a key the document does not hold is passed over. Applied once, after the overrides are
merged, by `common.json_artifact` and the marketplace writer (compiler/marketplace.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

KEY_ORDER = "key_order"  # the overrides section naming the orders, by document section


def ordered(value: Any, order: Sequence[Any]) -> Any:
    """`value` with its keys in `order` (a key order, as above); lists order each object."""
    if not order:
        return value
    if isinstance(value, list):
        return [ordered(item, order) for item in value]
    if not isinstance(value, dict):
        return value
    inner: dict[str, Sequence[Any]] = {}
    named: list[str] = []
    for item in order:
        if isinstance(item, Mapping):
            for key, sub in item.items():
                named.append(str(key))
                inner[str(key)] = sub
        else:
            named.append(str(item))
    keys = [k for k in dict.fromkeys(named) if k in value]
    keys += [k for k in value if k not in keys]
    return {k: ordered(value[k], inner[k]) if k in inner else value[k] for k in keys}


def order_of(value: Any, written: Any) -> list[Any]:
    """The key order that turns `written` (what memhub writes) into `value`'s order: each
    object's keys where they differ, nested objects only where theirs differ; [] when the
    orders agree. A list's objects share one order (merged; the first wins a conflict)."""
    if isinstance(value, list) and isinstance(written, list):
        orders = [order_of(a, b) for a, b in zip(value, written, strict=False)]
        return _merged([o for o in orders if o])
    if not isinstance(value, dict) or not isinstance(written, dict):
        return []
    nested = {k: order_of(v, written[k]) for k, v in value.items() if k in written}
    nested = {k: o for k, o in nested.items() if o}
    if [k for k in written if k in value] == [k for k in value if k in written] and not nested:
        return []
    return [{k: nested[k]} if k in nested else k for k in value]


def _merged(orders: list[list[Any]]) -> list[Any]:
    """One order holding every order's keys, each placed after the keys before it in the
    first order naming it."""
    out: list[Any] = []
    index: dict[str, int] = {}
    for order in orders:
        last = -1
        for item in order:
            key = next(iter(item)) if isinstance(item, Mapping) else item
            if key in index:
                last = index[key]
                continue
            out.insert(last + 1, item)
            last += 1
            index = {(next(iter(i)) if isinstance(i, Mapping) else i): n for n, i in enumerate(out)}
    return out
