"""The NovaMind world: one module per mechanic of CEO-Bench Appendix A."""
