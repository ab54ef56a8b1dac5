#include "CMosquitto.h"

#include <dlfcn.h>
#include <stdio.h>

int cmosquitto_load(struct cmosquitto_api *api, char *error, size_t size) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(error, size, "%s", dlerror());
        return -1;
    }
#define LOAD(field, symbol)                                                         \
    do {                                                                            \
        *(void **)&api->field = dlsym(library, symbol);                             \
        if (api->field == NULL) {                                                   \
            snprintf(error, size, "libmosquitto.so.1 has no %s", symbol);           \
            return -1;                                                              \
        }                                                                           \
    } while (0)
    LOAD(lib_init, "mosquitto_lib_init");
    LOAD(create, "mosquitto_new");
    LOAD(destroy, "mosquitto_destroy");
    LOAD(int_option, "mosquitto_int_option");
    LOAD(connect, "mosquitto_connect");
    LOAD(disconnect, "mosquitto_disconnect");
    LOAD(publish, "mosquitto_publish");
    LOAD(subscribe, "mosquitto_subscribe");
    LOAD(loop_start, "mosquitto_loop_start");
    LOAD(loop_stop, "mosquitto_loop_stop");
    LOAD(connect_callback_set, "mosquitto_connect_callback_set");
    LOAD(publish_callback_set, "mosquitto_publish_callback_set");
    LOAD(subscribe_callback_set, "mosquitto_subscribe_callback_set");
    LOAD(message_callback_set, "mosquitto_message_callback_set");
    LOAD(strerror, "mosquitto_strerror");
#undef LOAD
    return api->lib_init() == 0 ? 0 : (snprintf(error, size, "mosquitto_lib_init failed"), -1);
}
