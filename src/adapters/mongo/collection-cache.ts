import type { Collection, Db, Document } from 'mongodb';

const cache = new WeakMap<Db, Map<string, Collection<Document>>>();

/**
 * db.collection(name), built once per database handle: the driver resolves options and BSON settings
 * anew on every call, which showed up in profiles of every storage operation.
 */
export function collectionOf<T extends Document>(db: Db, name: string): Collection<T> {
  let byName = cache.get(db);
  if (byName === undefined) {
    byName = new Map();
    cache.set(db, byName);
  }
  let collection = byName.get(name);
  if (collection === undefined) {
    collection = db.collection(name);
    byName.set(name, collection);
  }
  return collection as unknown as Collection<T>;
}
