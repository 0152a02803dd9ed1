# The same package the tests install (`pip install .`), nothing of a local checkout's
# state: .dockerignore keeps the virtual environment, data and caches out.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY memstream ./memstream
COPY projections ./projections
COPY queries ./queries
COPY models ./models
COPY storage ./storage
COPY streams ./streams
RUN pip install --no-cache-dir .
ENTRYPOINT []
