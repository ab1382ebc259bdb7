"""A lemonade stand: the smallest env of the Env contract, living only under ``tests/``.

It proves that an env is a plug-in (docs/envs.md): nothing under ``src/`` names it;
``tests/conftest.py`` puts ``tests/plugin_env`` on the path and lists ``lemonade.spec:SPEC`` in
``$BIZBENCH_ENVS``, and from then on it runs through every command like ceo, yc and cfo.

The files are the ones every env has: ``config.py`` + ``presets/``, ``env.py`` (the world and
the :class:`~bizbench.core.env.Env`), ``tools.py`` (the registry), ``baselines.py`` (``TABLE``)
and ``spec.py`` (``SPEC``).
"""
