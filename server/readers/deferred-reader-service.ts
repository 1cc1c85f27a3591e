// The reader service of `picks serve`, whose relevance model (half a megabyte of JSON, checked and
// compiled) is read at the readers' first call rather than before the server listens: a start then
// answers its first request without it, and a server no reader calls never reads it.

import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import { createReaderService, type ReaderService, type ReaderServiceOptions } from "./reader-service.ts";

export function deferredReaderService(
  options: Omit<ReaderServiceOptions, "relevance">,
  load: () => Promise<CompiledRelevance | null>,
): ReaderService {
  let ready: Promise<ReaderService> | undefined;
  const service = () => {
    ready ??= load().then((relevance) => createReaderService({ ...options, relevance }));
    return ready;
  };
  return {
    profile: async (keyId) => (await service()).profile(keyId),
    writeLibrary: async (record, items, unreadable, replace) =>
      (await service()).writeLibrary(record, items, unreadable, replace),
    rate: async (record, arxivId, rating) => (await service()).rate(record, arxivId, rating),
    follow: async (record, follows) => (await service()).follow(record, follows),
    exportProfile: async (record) => (await service()).exportProfile(record),
    erase: async (keyId) => (await service()).erase(keyId),
    picks: async (record, date, limit, capped) => (await service()).picks(record, date, limit, capped),
    picksJson: async (record, date, limit, capped) =>
      (await service()).picksJson(record, date, limit, capped),
    rankDay: async (keyId, date, explain) => (await service()).rankDay(keyId, date, explain),
    rankDays: async (keyIds, date, explain) => (await service()).rankDays(keyIds, date, explain),
    completeLibrary: async (keyId, texts, reasons) =>
      (await service()).completeLibrary(keyId, texts, reasons),
  };
}
