# The tafl Discord bot. Build: docker build -t tafl .
# Run:   docker run -d --name tafl -e DISCORD_TOKEN=... -v tafl-data:/data tafl
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY pyproject.toml README.md LICENSE NOTICE constraints.txt /src/
COPY engine /src/engine
COPY renderer /src/renderer
COPY bot /src/bot
# constraints.txt pins every dependency (and the build backend) to the tested versions.
RUN PIP_CONSTRAINT=/src/constraints.txt pip install /src \
    && rm -rf /src \
    && useradd --create-home --uid 10001 tafl \
    && mkdir /data \
    && chown tafl:tafl /data

ENV TAFL_DB=/data/tafl.sqlite3 \
    TAFL_LOG_LEVEL=INFO
VOLUME ["/data"]
WORKDIR /data
USER tafl

# Healthy when the database opens and the bot's gateway heartbeat (written every 30 s beside
# the database) is under 90 s old.
HEALTHCHECK --interval=60s --timeout=15s --start-period=60s --retries=3 CMD ["tafl", "health"]

# The bot is PID 1 (exec form): `docker stop` sends it SIGTERM, and it stops gracefully (new
# commands are told it is restarting, those under way get 5 s), well within Docker's 10 s.
STOPSIGNAL SIGTERM
CMD ["tafl", "bot"]
