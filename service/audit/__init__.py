"""The audit log: the NDJSON file (logfile), its offline verifier (verify), its export (export).

docs/log-format.md is the specification; engine/core/canonical.py, chain.py and
fairness.py hold the pure functions the service and the verifier share.
"""
