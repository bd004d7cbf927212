"""The project's benchmarks (not tests): ``python -m bench.run`` prints one table.

Speed is measured here and never asserted in timed tests. Every figure is the
median of repeated samples, and each figure is compared with an anchor (RLCard,
the eventsourcing library, a bare gRPC echo) measured side by side in the same run:
the rounds interleave one sample of every probe, so drift on a shared machine
hits figure and anchor alike.
"""
