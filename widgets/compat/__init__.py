"""The only modules that reach into a library's private API (one per library).

An upgrade that changes what one relies on fails its canary test
(tests/widgets/test_compat_*.py), and tests/test_private_apis.py checks that no
other module uses a library's private name. ARCHITECTURE.md lists each use.
"""
