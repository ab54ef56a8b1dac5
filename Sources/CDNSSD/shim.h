// DNS-SD through Avahi's Bonjour compatibility library (libavahi-compat-libdnssd-dev).
#include <dns_sd.h>
