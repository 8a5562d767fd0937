"""Token shapes: the published formats of API keys and tokens, tried on long word runs."""

from __future__ import annotations

import re

from .lazy import Lazy

# Each alternative is one named format; `lastgroup` names the one that matched. Formats
# learned from public secret-scanner rule sets; the expressions are our own.
_SHAPE_RULES: tuple[tuple[str, str], ...] = (
    ("anthropic", r"sk-ant-[a-z]{2,8}\d\d-[\w-]{20,}"),
    ("openai", r"sk-(?:proj-|svcacct-|admin-)?[\w-]{16,}"),
    ("github", r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("github_pat", r"github_pat_\w{20,}"),
    ("gitlab", r"gl(?:pat|dt|rt|ptt|cbt|soat|ffct|imt|agent|oas|ft)-[\w-]{16,}"),
    ("gitlab_runner", r"GR1348941[\w-]{20,}"),
    ("slack", r"xox[abposre]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[\w-]{10,}"),
    ("slack", r"xapp-\d-[\w-]{20,}"),
    ("aws", r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"),
    ("google", r"AIza[\w-]{30,}"),
    ("google", r"GOCSPX-[\w-]{24,}"),
    ("google", r"ya29\.[\w-]{30,}"),
    ("stripe", r"sk_(?:live|test)_[A-Za-z0-9]{20,}"),
    ("stripe", r"rk_(?:live|test)_[A-Za-z0-9]{20,}"),
    ("stripe", r"whsec_[A-Za-z0-9+/=]{24,}"),
    ("npm", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("pypi", r"pypi-AgE[A-Za-z0-9]{10,}[\w-]{30,}"),
    ("jwt", r"eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}"),
    ("sendgrid", r"SG\.[\w-]{16,}\.[\w-]{16,}"),
    ("twilio", r"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
    ("heroku", r"HRKU-[\w-]{30,}"),
    ("digitalocean", r"do[opr]_v1_[a-f0-9]{64}"),
    ("shopify", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("huggingface", r"hf_[A-Za-z0-9]{30,}"),
    ("huggingface", r"api_org_[A-Za-z0-9]{30,}"),
    ("databricks", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("atlassian", r"ATATT3[\w=-]{50,}|ATBB[A-Za-z0-9]{28,}"),
    ("doppler", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("dynatrace", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("linear", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    ("notion", r"secret_[A-Za-z0-9]{43,}"),
    ("notion", r"ntn_[A-Za-z0-9]{43,}"),
    ("postman", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("pulumi", r"pul-[a-f0-9]{40}"),
    ("grafana", r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    ("sentry", r"sntry[su]_[\w+/=-]{40,}"),
    ("vault", r"hv[sb]\.[\w-]{24,}"),
    ("newrelic", r"NRAK-[A-Z0-9]{27}"),
    ("age", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("square", r"sq0(?:atp|csp)-[\w-]{22,}"),
    ("square", r"EAAA[\w-]{60,}"),
    ("shippo", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("flutterwave", r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X"),
    ("planetscale", r"pscale_(?:tkn|pw|oauth)_[\w.=-]{32,}"),
    ("supabase", r"sbp_[a-f0-9]{40}"),
    ("airtable", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("groq", r"gsk_[A-Za-z0-9]{40,}"),
    ("xai", r"xai-[A-Za-z0-9]{60,}"),
    ("replicate", r"r8_[A-Za-z0-9]{30,}"),
    ("perplexity", r"pplx-[A-Za-z0-9]{40,}"),
    ("mapbox", r"sk\.eyJ[\w.-]{20,}"),
    ("buildkite", r"bkua_[a-f0-9]{40}"),
    ("docker", r"dckr_pat_[\w-]{20,}"),
    ("sourcegraph", r"sgp_\w{30,}"),
    ("prefect", r"pnu_[A-Za-z0-9]{36}"),
    ("readme", r"rdme_[a-z0-9]{70}"),
    ("rubygems", r"rubygems_[a-f0-9]{48}"),
    ("clojars", r"CLOJARS_[a-z0-9]{60}"),
    ("duffel", r"duffel_(?:test|live)_[\w=-]{43}"),
    ("easypost", r"EZAK[a-z0-9]{54}"),
    ("typeform", r"tfp_[\w-]{40,}"),
    ("mailgun", r"key-[0-9a-f]{32}(?![0-9a-f])"),
    ("circleci", r"CCIPAT_\w{40,}"),
    ("flyio", r"fo1_[\w-]{40,}"),
    ("new_relic_insert", r"NRII-[\w-]{32}"),
)
# Token shapes are tried only on runs of token characters at least this long (the shortest
# shape above, `xoxb-` and ten characters, is 15), so prose costs one cheap scan; and in a
# run only where a shape can start: after a boundary, at a character that starts one of
# them, with only the shapes that start with it (one big alternation tried at every
# position of a long base64 blob cost five times more).
RUN = Lazy(r"(?<![\w.+/=~-])[\w.+/=~-]{15,}")


def _by_first_character() -> dict[str, Lazy]:
    grouped: dict[str, list[tuple[str, str]]] = {}
    for name, rx in _SHAPE_RULES:
        grouped.setdefault(rx[0], []).append((name, rx))
    return {
        first: Lazy("|".join(f"(?P<{name}_{i}>{rx})" for i, (name, rx) in enumerate(rules)))
        for first, rules in grouped.items()
    }


SHAPES_BY_FIRST = _by_first_character()
assert all(first.isalnum() for first in SHAPES_BY_FIRST), "a shape must start with a letter"
SHAPE_START = Lazy(r"(?<![A-Za-z0-9])[" + re.escape("".join(SHAPES_BY_FIRST)) + "]")
# Shapes that start with a class, not a letter: each behind a substring it must hold.
GATED_SHAPES: tuple[tuple[str, str, Lazy], ...] = (
    (".atlasv1.", "terraform", Lazy(r"(?<![A-Za-z0-9])[a-z0-9]{14}\.atlasv1\.[\w-]{60,}")),
    (":AA", "telegram", Lazy(r"(?<![A-Za-z0-9])\d{8,10}:(AA[\w-]{33})")),
    ("-us", "mailchimp", Lazy(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?!\d)")),
    ("Q~", "azure_ad", Lazy(r"(?<![\w~.])[\w~.]{3}\dQ~[\w~.-]{31,34}")),
)
# Shapes whose prefix is kept (it tells the reader what was there) or that hold `:`.
MEMHUB_KEY = Lazy(r"(?<![A-Za-z0-9])(?:mhk|xtk)_([\w-]{8,})")
WEBHOOK = Lazy(
    r"(?i)(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|discord(?:app)?\.com/api/webhooks/\d+/|\.webhook\.office\.com/webhookb2/)"
    r"([\w@/+-]{16,})"
)
PEM = Lazy(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----"
    r"(.*?(?:-----END \1PRIVATE KEY\2-----|\Z))",
    re.S,
)
