/* The woofles device as the base of a faulty plugin: every hook renamed
 * Base_<name>, so that c_device_faults.c can export the real names and plant
 * exactly one fault in front of them. */
#define TVMDeviceWooflesInit Base_TVMDeviceWooflesInit
#define TVMDeviceWooflesActivate Base_TVMDeviceWooflesActivate
#define TVMDeviceWooflesOpen Base_TVMDeviceWooflesOpen
#define TVMDeviceWooflesClose Base_TVMDeviceWooflesClose
#define TVMDeviceWooflesDeactivate Base_TVMDeviceWooflesDeactivate
#define TVMDeviceWooflesDestroy Base_TVMDeviceWooflesDestroy
#define TVMDeviceWooflesDmaInit Base_TVMDeviceWooflesDmaInit
#define TVMDeviceWooflesDmaActivate Base_TVMDeviceWooflesDmaActivate
#define TVMDeviceWooflesDmaOpen Base_TVMDeviceWooflesDmaOpen
#define TVMDeviceWooflesDmaClose Base_TVMDeviceWooflesDmaClose
#define TVMDeviceWooflesDmaDeactivate Base_TVMDeviceWooflesDmaDeactivate
#define TVMDeviceWooflesDmaDestroy Base_TVMDeviceWooflesDmaDestroy
#undef WOOFLES_EXPORT
#include "woofles.c"
