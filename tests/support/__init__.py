"""Helpers the test modules share (test modules never import each other; conftest keeps fixtures).

Importable as ``support`` because pytest puts ``tests/`` on ``sys.path`` for ``tests/conftest.py``
(rootdir-relative ``prepend`` imports, no ``__init__.py`` in ``tests/``); the benches add it too.
"""
