"""The writer's stages, one module each; every stage is a pure function of its input."""
