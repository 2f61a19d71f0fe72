"""Logging handlers that publish records on a PUB socket (pyzmq's ``zmq.log.handlers``).

::

    handler = PUBHandler("tcp://127.0.0.1:12345")   # or PUBHandler(pub_socket)
    handler.root_topic = "myapp"
    logging.getLogger("myapp").addHandler(handler)

Each record is sent as two frames: the topic, then the formatted message
(UTF-8). The topic is ``root_topic.LEVEL``, plus a subtopic when the message
starts with ``"subtopic::"``: ``log.info("db.query::slow")`` is published as
``[b"myapp.INFO.db.query", b"slow\\n"]``. Subscribers filter on topic prefixes.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from purezmq import constants as C
from purezmq.sugar.context import Context
from purezmq.sugar.socket import Socket

#: Separates a subtopic from the message text: ``"subtopic::message"``.
TOPIC_DELIM = "::"

_DETAILED = "%(levelname)s %(filename)s:%(lineno)d - %(message)s\n"


class PUBHandler(logging.Handler):
    """A logging handler that publishes each record on a PUB socket.

    `interface_or_socket` is a PUB socket (already bound or connected), or an
    endpoint to bind a new PUB socket to (in `context`, or a new Context).
    ``formatters`` holds one Formatter per level; `setFormatter` replaces all
    of them, or one level's.
    """

    formatters: dict[int, logging.Formatter | None]
    ctx: Context
    socket: Socket

    def __init__(
        self,
        interface_or_socket: str | Socket,
        context: Context | None = None,
        root_topic: str = "",
    ) -> None:
        super().__init__()
        self.root_topic = root_topic
        self.formatters = {
            logging.DEBUG: logging.Formatter(_DETAILED),
            logging.INFO: logging.Formatter("%(message)s\n"),
            logging.WARNING: logging.Formatter(_DETAILED),
            logging.ERROR: logging.Formatter(
                "%(levelname)s %(filename)s:%(lineno)d - %(message)s - %(exc_info)s\n"
            ),
            logging.CRITICAL: logging.Formatter(_DETAILED),
        }
        if isinstance(interface_or_socket, Socket):
            self.socket = interface_or_socket
            self.ctx = interface_or_socket.context
        else:
            self.ctx = context or Context()
            self.socket = self.ctx.socket(C.PUB)
            self.socket.bind(interface_or_socket)

    @property
    def root_topic(self) -> str:
        """Prefix of every topic ('' for none: topics then start with the level)."""
        return self._root_topic

    @root_topic.setter
    def root_topic(self, value: str | bytes) -> None:
        self.setRootTopic(value)

    def setRootTopic(self, root_topic: str | bytes) -> None:  # noqa: N802 - logging style
        """Set `root_topic` (bytes are decoded as UTF-8)."""
        if isinstance(root_topic, bytes):
            root_topic = root_topic.decode("utf8")
        self._root_topic = root_topic

    def setFormatter(self, fmt: logging.Formatter | None, level: int = logging.NOTSET) -> None:  # noqa: N802
        """Use `fmt` for every level, or only for `level`."""
        if level == logging.NOTSET:
            for lvl in self.formatters:
                self.formatters[lvl] = fmt
        else:
            self.formatters[level] = fmt

    def format(self, record: logging.LogRecord) -> str:
        fmt = self.formatters.get(record.levelno)
        if fmt is None:
            fmt = self.formatter or logging.Formatter("%(message)s\n")
        return fmt.format(record)

    def emit(self, record: logging.LogRecord) -> None:
        """Publish `record` as ``[topic, message]``."""
        subtopic = ""
        text = str(record.msg)
        if TOPIC_DELIM in text:
            subtopic, rest = text.split(TOPIC_DELIM, 1)
            record = copy.copy(record)  # never change the caller's record
            record.msg = rest
        try:
            body = self.format(record).encode("utf8")
        except Exception:
            self.handleError(record)
            return
        parts = [p for p in (self.root_topic, record.levelname, subtopic) if p]
        topic = ".".join(parts).encode("utf8", "replace")
        self.socket.send_multipart([topic, body])


class TopicLogger(logging.Logger):
    """A Logger whose methods take a topic first: ``log.info("db.query", "slow %s", x)``
    logs ``"db.query::slow ..."``, which PUBHandler publishes under that subtopic."""

    def log(self, level: int, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().log(level, f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    def debug(self, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().debug(f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    def info(self, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().info(f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    def warning(self, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().warning(f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    warn = warning  # type: ignore[assignment]

    def error(self, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().error(f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    def exception(self, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().exception(f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    def critical(self, topic: str, msg: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().critical(f"{topic}{TOPIC_DELIM}{msg}", *args, **kwargs)

    fatal = critical  # type: ignore[assignment]


__all__ = ["TOPIC_DELIM", "PUBHandler", "TopicLogger"]
