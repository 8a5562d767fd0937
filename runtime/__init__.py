"""memhub runtime: what generated hooks execute. Stdlib only; vendored into bundles.

Modules here use relative imports only, so a bundle can ship this folder as a
package of its own and run it under `python3 -S` without memhub installed.
"""
