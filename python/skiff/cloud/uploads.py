"""A submit request's body, read for the server: the job's spec (JSON) and its directory's
archive, streamed to a file under the service's incoming/ folder with its size bounded, so
a request too big is refused while it arrives (or from its Content-Length alone) and leaves
nothing behind."""
import json
import os
import shutil

from .service import ServiceError

__all__ = ["read_upload", "parse_spec", "MAX_SPEC_BYTES"]

MAX_SPEC_BYTES = 1 << 20


async def read_upload(request, service):
    """(spec, archive path or None) of a submit request: JSON (spec only) or multipart
    (a "spec" part and an optional "archive" part, streamed to disk and bounded)."""
    limit = service.max_upload
    if request.content_length is not None and request.content_length > limit + MAX_SPEC_BYTES:
        raise ServiceError(413, f"the upload is {request.content_length} bytes; the limit is "
                                f"{limit}")
    if request.content_type == "application/json":
        body = await request.content.read(MAX_SPEC_BYTES + 1)
        if len(body) > MAX_SPEC_BYTES:
            raise ServiceError(413, f"the job spec is over {MAX_SPEC_BYTES} bytes")
        return parse_spec(body), None, None
    if request.content_type != "multipart/form-data":
        raise ServiceError(400, "submit a job as application/json (its spec) or "
                                "multipart/form-data (a 'spec' part and an 'archive' part)")
    reader = await request.multipart()
    spec, archive, folder = None, None, None
    try:
        while True:
            part = await reader.next()
            if part is None:
                break
            if part.name == "spec":
                body = await part.read(decode=False)
                if len(body) > MAX_SPEC_BYTES:
                    raise ServiceError(413, f"the job spec is over {MAX_SPEC_BYTES} bytes")
                spec = parse_spec(bytes(body))
            elif part.name == "archive":
                folder = service.incoming_dir()
                archive = os.path.join(folder, "upload")
                size = 0
                with open(archive, "wb") as f:
                    while True:
                        chunk = await part.read_chunk(1 << 20)
                        if not chunk:
                            break
                        size += len(chunk)
                        if size > limit:
                            raise ServiceError(413, f"the archive is over the service's "
                                                    f"limit of {limit} bytes")
                        f.write(chunk)
            else:
                raise ServiceError(400, f"unknown part {part.name!r}; a submit has 'spec' and "
                                        f"'archive'")
        if spec is None:
            raise ServiceError(400, "the submit has no 'spec' part")
    except BaseException:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return spec, archive, folder


def parse_spec(body):
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ServiceError(400, f"the job spec is not JSON: {e}") from None
