import { Injectable } from '@nestjs/common';
import { DisplayValue, FieldProblem, OTHER_SUBTYPE } from '@vault/contracts';
import { RecordSubtypeEntity, RecordTypeEntity } from '../../persistence/record-types/record-type.entity';
import { RecordTypeRepository } from '../../persistence/record-types/record-type.repository';
import { unknownRecordType } from './catalogue.errors';

interface Catalogue {
  types: RecordTypeEntity[];
  typesById: Map<string, RecordTypeEntity>;
  subtypesById: Map<string, RecordSubtypeEntity>;
}

export interface ResolvedType {
  type: RecordTypeEntity;
  subtype: RecordSubtypeEntity;
}

/**
 * The record type catalogue. It is reference data that only migrations change, so it
 * is read once and kept in memory.
 */
@Injectable()
export class CatalogueService {
  private cache?: Promise<Catalogue>;

  constructor(private readonly rows: RecordTypeRepository) {}

  private load(): Promise<Catalogue> {
    this.cache ??= (async () => {
      const types = await this.rows.types();
      const subtypes = await this.rows.subtypes();
      return {
        types,
        typesById: new Map(types.map((t) => [t.id, t])),
        subtypesById: new Map(subtypes.map((s) => [s.id, s])),
      };
    })().catch((err) => {
      this.cache = undefined;
      throw err;
    });
    return this.cache;
  }

  async allTypes(): Promise<RecordTypeEntity[]> {
    return (await this.load()).types;
  }

  async type(id: string): Promise<RecordTypeEntity> {
    const t = (await this.load()).typesById.get(id);
    if (!t) throw new Error(`record type ${id} is not in the catalogue`);
    return t;
  }

  async subtype(id: string): Promise<RecordSubtypeEntity> {
    const s = (await this.load()).subtypesById.get(id);
    if (!s) throw new Error(`record subtype ${id} is not in the catalogue`);
    return s;
  }

  /** Finds a type and one of its subtypes by name; unknown names are a 400 naming the field. */
  async resolve(typeName: string, subtypeName: string): Promise<ResolvedType> {
    const cat = await this.load();
    const type = cat.types.find((t) => t.name === typeName);
    const problems: FieldProblem[] = [];
    if (!type) problems.push({ field: 'recordTypeName', message: 'recordTypeName is not a known record type' });
    const subtype = type
      ? [...cat.subtypesById.values()].find((s) => s.recordTypeId === type.id && s.name === subtypeName)
      : undefined;
    if (type && !subtype) {
      problems.push({
        field: 'recordSubtypeName',
        message: `recordSubtypeName is not a subtype of ${typeName}`,
      });
    }
    if (!type || !subtype) {
      throw unknownRecordType(problems);
    }
    return { type, subtype };
  }

  /** Ids of the subtypes with a given name (a search filter across types). */
  async subtypeIdsNamed(name: string): Promise<string[]> {
    return [...(await this.load()).subtypesById.values()].filter((s) => s.name === name).map((s) => s.id);
  }
}

/** Display values limited to one locale when one is asked for. */
export function inLocale(values: DisplayValue[], locale: string | undefined): DisplayValue[] {
  return locale ? values.filter((v) => v.locale === locale) : values;
}

export const isOtherSubtype = (s: RecordSubtypeEntity) => s.name === OTHER_SUBTYPE;
