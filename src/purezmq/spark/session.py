"""A small embedded SparkSession for demos, tests and laptops.

Spark on one machine (``local[N]``) needs a few settings to behave: bind to
loopback (otherwise Spark picks a network interface and warns), run Python
workers with this very interpreter (so they import the same purezmq), no web
UI port, few shuffle partitions for small data, quiet logs.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from typing import Any

# Errors only, on stderr: Spark's default profile prints INFO/WARN start-up noise.
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _quiet_log4j() -> str:
    """A log4j2 configuration file for the driver JVM (written once per process)."""
    path = os.path.join(tempfile.gettempdir(), f"purezmq-log4j2-{os.getpid()}.properties")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(_LOG4J2)
        atexit.register(_remove, path)
    return path


def java_available() -> bool:
    """Whether a Java runtime can be found (JAVA_HOME or java on PATH)."""
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


def local_session(
    app_name: str = "purezmq",
    *,
    master: str = "local[2]",
    shuffle_partitions: int = 2,
    conf: dict[str, str] | None = None,
    register: bool = True,
) -> Any:
    """A local SparkSession with sane settings, with ``format("zmq")`` registered."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.faulthandler.enabled", "true")
        .config("spark.ui.showConsoleProgress", "false")
        .config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{_quiet_log4j()}"
        )
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if register:
        from . import register as _register

        _register(spark)
    return spark
