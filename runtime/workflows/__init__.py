"""PR and spec workflows: pure decisions from one tool call's data (which PR a call names,
whether this session opened it, which specs own a path). Stdlib only, nothing compiled at
import: the hook's `after_tool` path calls these."""
