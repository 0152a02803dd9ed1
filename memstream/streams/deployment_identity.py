"""Which deployment a log serves: its data location and its partition count, recorded
in the log itself before any worker consumes.

The first record of the one-partition ``memory.deployment`` topic names the data
location (a folder's absolute path, or an ``s3://`` prefix) and the partition count of
the deployment whose workers, embedders and documents lane share this broker's consumer
groups. The first process to start writes it; every process reads it back before it
joins a group or reads a record (when two race, both read the record at offset 0), and
one of another data location or partition count refuses in one line naming both. So a
worker started with the wrong ``--kafka`` (or a mistyped bucket) never takes another
deployment's partitions, dead-letters its records or publishes its own journal there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from memstream.settings import Settings
from memstream.streams.errors import BrokerError, StreamsError
from memstream.streams.topics import DEPLOYMENT, append_record, first_record

__all__ = ["DeploymentIdentity", "ForeignDeployment", "claim_log", "identity_of", "refusal"]


class ForeignDeployment(StreamsError):
    """The broker's log serves another deployment (another data location, or another
    partition count)."""


@dataclass(frozen=True)
class DeploymentIdentity:
    """What a log serves: the data location's URI and the messages' partition count."""

    data: str
    partitions: int

    def encode(self) -> bytes:
        return json.dumps({"data": self.data, "partitions": self.partitions}).encode()

    @classmethod
    def decode(cls, raw: bytes) -> DeploymentIdentity:
        document = json.loads(raw)
        return cls(str(document["data"]), int(document["partitions"]))


def identity_of(settings: Settings) -> DeploymentIdentity:
    """The identity of the deployment ``settings`` describe."""
    return DeploymentIdentity(settings.data_location.uri, settings.messages_partitions)


def refusal(bootstrap: str, theirs: DeploymentIdentity, mine: DeploymentIdentity) -> str:
    """The one line that says why this process will not join the log at ``bootstrap``."""
    if theirs.data != mine.data:
        return (
            f"the broker at {bootstrap} serves the deployment of {theirs.data}, not "
            f"{mine.data}: a second deployment needs its own broker (leave out --kafka "
            f"and give it its own ports, or give it a Kafka of its own), or point this "
            f"process at {theirs.data}"
        )
    return (
        f"the broker at {bootstrap} serves {theirs.data} with {theirs.partitions} "
        f"partitions, not {mine.partitions}: set MEMSTREAM_MESSAGES_PARTITIONS="
        f"{theirs.partitions}"
    )


async def claim_log(bootstrap: str, mine: DeploymentIdentity) -> DeploymentIdentity:
    """The identity the log at ``bootstrap`` records (``mine``, written first if it
    records none yet). The caller creates the topic before.

    Raises:
        ForeignDeployment: the log serves another deployment.
    """
    first = await first_record(bootstrap, DEPLOYMENT)
    if first is None:
        await append_record(bootstrap, DEPLOYMENT, mine.encode())
        first = await first_record(bootstrap, DEPLOYMENT)
    if first is None:
        raise BrokerError(f"cannot read back {DEPLOYMENT} on {bootstrap}")
    try:
        theirs = DeploymentIdentity.decode(first)
    except (ValueError, KeyError, TypeError, RecursionError):
        raise ForeignDeployment(
            f"the broker at {bootstrap} holds a {DEPLOYMENT} record that names no "
            "deployment: it serves something else; give this deployment a broker of its own"
        ) from None
    if theirs != mine:
        raise ForeignDeployment(refusal(bootstrap, theirs, mine))
    return theirs
