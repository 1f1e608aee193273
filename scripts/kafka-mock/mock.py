#!/usr/bin/python3
"""A Kafka-protocol broker for tests: librdkafka's mock cluster, started through
`test.mock.num.brokers`, from the shared library given first (see ./librdkafka: built from the
source in the npm package @confluentinc/kafka-javascript, or the OS's librdkafka.so.1).

Usage: mock.py LIBRDKAFKA TOPIC:PARTITIONS ...
Pre-creates the topics (the mock serves neither CreateTopics nor idempotent producers), prints
`BOOTSTRAP host:port` on stdout, then obeys one command per stdin line:
  down   the broker drops its connections and refuses new ones (an outage; data is kept)
  up     the broker accepts connections again
  fail API_KEY ERROR_CODE   the next request of that API (e.g. 14, SyncGroup) is answered with
         that Kafka error code (e.g. 42, INVALID_REQUEST), whoever sends it
  stop   shut down (so do EOF on stdin, SIGTERM and SIGINT)
Each command is answered with `OK <command>`.
"""
import ctypes
import signal
import sys

BROKER_ID = 1

# API versions capped below what the mock offers, for kafkajs 2.2.4, which uses the highest version
# both sides list. librdkafka 2.15's mock offers LeaveGroup up to v4, kafkajs then sends v3 (batched
# members), and the leave does not take effect: the group waits for the member's session to time
# out. Measured on the events contract suite: a member that stops cleanly 15.2 s uncapped, 8.3 s at
# LeaveGroup v1 (what kafkajs needs); crash redelivery 20.2 s vs 13.5 s. {api key: (min, max)}
API_VERSION_CAPS = {13: (0, 1)}


def load(path):
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        sys.exit(f"kafka-mock: cannot load librdkafka ({error}). It is built from the npm package "
                 "@confluentinc/kafka-javascript (run npm install; npm 10 drops it when its own install "
                 "script fails), or set KAFKA_MOCK_LIBRDKAFKA to a librdkafka.so.1")
    vp, cp, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    lib.rd_kafka_conf_new.restype = vp
    lib.rd_kafka_conf_set.argtypes = [vp, cp, cp, cp, ctypes.c_size_t]
    lib.rd_kafka_conf_set.restype = ci
    lib.rd_kafka_new.argtypes = [ci, vp, cp, ctypes.c_size_t]
    lib.rd_kafka_new.restype = vp
    lib.rd_kafka_handle_mock_cluster.argtypes = [vp]
    lib.rd_kafka_handle_mock_cluster.restype = vp
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [vp]
    lib.rd_kafka_mock_cluster_bootstraps.restype = cp
    lib.rd_kafka_mock_topic_create.argtypes = [vp, cp, ci, ci]
    lib.rd_kafka_mock_topic_create.restype = ci
    lib.rd_kafka_mock_broker_set_down.argtypes = [vp, ctypes.c_int32]
    lib.rd_kafka_mock_broker_set_down.restype = ci
    lib.rd_kafka_mock_broker_set_up.argtypes = [vp, ctypes.c_int32]
    lib.rd_kafka_mock_broker_set_up.restype = ci
    lib.rd_kafka_mock_push_request_errors_array.argtypes = [vp, ctypes.c_int16, ctypes.c_size_t, ctypes.POINTER(ci)]
    lib.rd_kafka_mock_push_request_errors_array.restype = None
    lib.rd_kafka_mock_set_apiversion.argtypes = [vp, ctypes.c_int16, ctypes.c_int16, ctypes.c_int16]
    lib.rd_kafka_mock_set_apiversion.restype = ci
    lib.rd_kafka_destroy.argtypes = [vp]
    lib.rd_kafka_err2str.argtypes = [ci]
    lib.rd_kafka_err2str.restype = cp
    return lib


def main(library, specs):
    lib = load(library)
    errstr = ctypes.create_string_buffer(512)
    conf = lib.rd_kafka_conf_new()
    for key, value in ((b"test.mock.num.brokers", b"1"), (b"log_level", b"0")):
        if lib.rd_kafka_conf_set(conf, key, value, errstr, len(errstr)) != 0:
            sys.exit(f"kafka-mock: {key.decode()}: {errstr.value.decode()}")
    # A producer handle owns the mock cluster; nothing is ever produced through it.
    rk = lib.rd_kafka_new(0, conf, errstr, len(errstr))
    if not rk:
        sys.exit(f"kafka-mock: {errstr.value.decode()}")
    cluster = lib.rd_kafka_handle_mock_cluster(rk)
    for api_key, (low, high) in API_VERSION_CAPS.items():
        lib.rd_kafka_mock_set_apiversion(cluster, api_key, low, high)
    for spec in specs:
        name, _, partitions = spec.partition(":")
        err = lib.rd_kafka_mock_topic_create(cluster, name.encode(), int(partitions or 1), 1)
        if err != 0:
            sys.exit(f"kafka-mock: topic {name}: {lib.rd_kafka_err2str(err).decode()}")
    print(f"BOOTSTRAP {lib.rd_kafka_mock_cluster_bootstraps(cluster).decode()}", flush=True)

    def stop(*_):
        lib.rd_kafka_destroy(rk)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for line in sys.stdin:
        command = line.strip()
        if command == "down":
            lib.rd_kafka_mock_broker_set_down(cluster, BROKER_ID)
        elif command == "up":
            lib.rd_kafka_mock_broker_set_up(cluster, BROKER_ID)
        elif command.startswith("fail "):
            api_key, error_code = (int(v) for v in command.split()[1:3])
            lib.rd_kafka_mock_push_request_errors_array(cluster, api_key, 1, (ctypes.c_int * 1)(error_code))
        elif command == "stop":
            print("OK stop", flush=True)
            break
        elif command:
            print(f"ERR unknown command {command}", flush=True)
            continue
        print(f"OK {command}", flush=True)
    stop()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: mock.py LIBRDKAFKA TOPIC:PARTITIONS ...")
    main(sys.argv[1], sys.argv[2:])
