// libmosquitto, loaded at run time: caresync-bench compares CareSync with a Mosquitto broker
// and a native client where Debian's libmosquitto1 is installed, and builds where it is not
// (the section is then skipped). Declares only what the benchmark uses, as mosquitto.h of
// libmosquitto 2.0 does.
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <stdbool.h>
#include <stddef.h>

struct mosquitto;

struct mosquitto_message {
    int mid;
    char *topic;
    void *payload;
    int payloadlen;
    int qos;
    bool retain;
};

/// MOSQ_OPT_TCP_NODELAY of mosquitto.h.
#define CMOSQUITTO_OPT_TCP_NODELAY 11

/// The library's functions; every one is set once `cmosquitto_load` succeeded.
struct cmosquitto_api {
    int (*lib_init)(void);
    struct mosquitto *(*create)(const char *id, bool clean_session, void *obj);
    void (*destroy)(struct mosquitto *mosq);
    int (*int_option)(struct mosquitto *mosq, int option, int value);
    int (*connect)(struct mosquitto *mosq, const char *host, int port, int keepalive);
    int (*disconnect)(struct mosquitto *mosq);
    int (*publish)(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain);
    int (*subscribe)(struct mosquitto *mosq, int *mid, const char *sub, int qos);
    int (*loop_start)(struct mosquitto *mosq);
    int (*loop_stop)(struct mosquitto *mosq, bool force);
    void (*connect_callback_set)(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int));
    void (*publish_callback_set)(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int));
    void (*subscribe_callback_set)(struct mosquitto *mosq, void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *));
    void (*message_callback_set)(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));
    const char *(*strerror)(int error);
};

/// Loads libmosquitto.so.1 and fills `api`; 0 on success, else -1 with the reason in
/// `error` (at most `size` bytes, terminated).
int cmosquitto_load(struct cmosquitto_api *api, char *error, size_t size);

#endif
