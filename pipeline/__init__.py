"""logml: offline log analytics and root-cause ML for PaddlePaddle container fleets."""

__version__ = "0.1.0"
