/*
 * OSI_THREAD_LOCAL: per-thread storage for the lookup caches (op_registry.c,
 * op_arity.c). The wasm module runs one thread, and wasm-ld refuses
 * thread-local storage in a module built with bulk memory but without
 * atomics, so there it is plain static storage.
 */
#ifndef OSI_THREAD_LOCAL_H
#define OSI_THREAD_LOCAL_H

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define OSI_THREAD_LOCAL
#else
#define OSI_THREAD_LOCAL _Thread_local
#endif

#endif
