import { OTHER_SUBTYPE } from '@vault/contracts';
import { createHash } from 'node:crypto';

/** [name, en-US, es-US, fr-CA, en-CA when it differs from en-US] */
export type CatalogueLabel = [string, string, string, string, string?];

export interface CatalogueType {
  type: CatalogueLabel;
  subtypes: CatalogueLabel[];
}

export const CATALOGUE_ASSET_BASE = 'https://assets.vault.localhost/record-types';

/**
 * Stable ids (name-based, version 5 layout) so every deployment shares them. Written out here
 * rather than imported: the rows this migration inserts must not change when live code does.
 */
export function catalogueId(kind: string, name: string): string {
  const h = createHash('sha1').update(`vault:catalogue-${kind}:${name}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return [x.slice(0, 8), x.slice(8, 12), x.slice(12, 16), x.slice(16, 20), x.slice(20)].join('-');
}

export const OTHER_NAME = OTHER_SUBTYPE;
const OTHER: CatalogueLabel = [OTHER_NAME, 'Other', 'Otro', 'Autre'];

/** The twelve record types with their subtypes, `other` last in each (docs/records-api.md, Record types). */
export const RECORD_CATALOGUE: CatalogueType[] = [
  {
    type: ['identityDocs', 'Identity Documents', 'Documentos de identidad', "Pièces d'identité"],
    subtypes: [
      ['passport', 'Passport', 'Pasaporte', 'Passeport'],
      ['driversLicense', "Driver's License", 'Licencia de conducir', 'Permis de conduire', "Driver's Licence"],
      ['birthCertificate', 'Birth Certificate', 'Acta de nacimiento', 'Acte de naissance'],
      ['nationalId', 'National ID Card', 'Documento nacional de identidad', "Carte d'identité nationale"],
      [
        'socialSecurityCard',
        'Social Security Card',
        'Tarjeta de Seguro Social',
        "Carte d'assurance sociale",
        'Social Insurance Card',
      ],
      ['citizenshipCertificate', 'Citizenship Certificate', 'Certificado de ciudadanía', 'Certificat de citoyenneté'],
      ['permanentResidentCard', 'Permanent Resident Card', 'Tarjeta de residente permanente', 'Carte de résident permanent'],
      ['visa', 'Visa', 'Visa', 'Visa'],
      ['marriageCertificate', 'Marriage Certificate', 'Acta de matrimonio', 'Certificat de mariage'],
      OTHER,
    ],
  },
  {
    type: ['healthMedical', 'Health & Medical', 'Salud y medicina', 'Santé et médical'],
    subtypes: [
      ['healthCard', 'Health Card', 'Tarjeta de salud', "Carte d'assurance maladie"],
      ['medicalRecords', 'Medical Records', 'Historial médico', 'Dossiers médicaux'],
      ['prescriptions', 'Prescriptions', 'Recetas médicas', 'Ordonnances'],
      ['immunizations', 'Immunizations', 'Vacunas', 'Vaccins'],
      ['allergies', 'Allergies', 'Alergias', 'Allergies'],
      ['dentalRecords', 'Dental Records', 'Historial dental', 'Dossiers dentaires'],
      ['visionRecords', 'Vision Records', 'Historial de la vista', 'Dossiers de la vue'],
      ['medicalDevices', 'Medical Devices', 'Dispositivos médicos', 'Appareils médicaux'],
      OTHER,
    ],
  },
  {
    type: ['personalFinances', 'Personal Finances', 'Finanzas personales', 'Finances personnelles'],
    subtypes: [
      ['bankAccounts', 'Bank Accounts', 'Cuentas bancarias', 'Comptes bancaires'],
      ['creditCards', 'Credit Cards', 'Tarjetas de crédito', 'Cartes de crédit'],
      ['loans', 'Loans', 'Préstamos', 'Prêts'],
      ['mortgages', 'Mortgages', 'Hipotecas', 'Prêts hypothécaires'],
      ['taxReturns', 'Tax Returns', 'Declaraciones de impuestos', 'Déclarations de revenus'],
      ['budgets', 'Budgets', 'Presupuestos', 'Budgets'],
      ['bills', 'Bills', 'Facturas', 'Factures'],
      ['receipts', 'Receipts', 'Recibos', 'Reçus'],
      OTHER,
    ],
  },
  {
    type: ['investments', 'Investments', 'Inversiones', 'Placements'],
    subtypes: [
      ['brokerageAccounts', 'Brokerage Accounts', 'Cuentas de corretaje', 'Comptes de courtage'],
      ['retirementAccounts', 'Retirement Accounts', 'Cuentas de jubilación', 'Comptes de retraite'],
      ['stocks', 'Stocks', 'Acciones', 'Actions'],
      ['bonds', 'Bonds', 'Bonos', 'Obligations'],
      ['mutualFunds', 'Mutual Funds', 'Fondos mutuos', 'Fonds communs de placement'],
      ['cryptocurrency', 'Cryptocurrency', 'Criptomonedas', 'Cryptomonnaies'],
      ['privateEquity', 'Private Equity', 'Capital privado', 'Capital-investissement'],
      OTHER,
    ],
  },
  {
    type: ['insurancePolicies', 'Insurance Policies', 'Pólizas de seguro', "Polices d'assurance"],
    subtypes: [
      ['lifeInsurance', 'Life Insurance', 'Seguro de vida', 'Assurance vie'],
      ['healthInsurance', 'Health Insurance', 'Seguro médico', 'Assurance maladie'],
      ['homeInsurance', 'Home Insurance', 'Seguro de hogar', 'Assurance habitation'],
      ['autoInsurance', 'Auto Insurance', 'Seguro de auto', 'Assurance automobile'],
      ['travelInsurance', 'Travel Insurance', 'Seguro de viaje', 'Assurance voyage'],
      ['disabilityInsurance', 'Disability Insurance', 'Seguro por discapacidad', 'Assurance invalidité'],
      ['petInsurance', 'Pet Insurance', 'Seguro de mascotas', 'Assurance pour animaux'],
      OTHER,
    ],
  },
  {
    type: ['realEstate', 'Real Estate', 'Bienes raíces', 'Immobilier'],
    subtypes: [
      ['primaryResidence', 'Primary Residence', 'Residencia principal', 'Résidence principale'],
      ['rentalProperty', 'Rental Property', 'Propiedad en alquiler', 'Immeuble locatif'],
      ['vacationHome', 'Vacation Home', 'Casa vacacional', 'Résidence secondaire'],
      ['land', 'Land', 'Terreno', 'Terrain'],
      ['commercialProperty', 'Commercial Property', 'Propiedad comercial', 'Immeuble commercial'],
      ['leaseAgreement', 'Lease Agreement', 'Contrato de arrendamiento', 'Bail'],
      OTHER,
    ],
  },
  {
    type: ['transportation', 'Transportation', 'Transporte', 'Transport'],
    subtypes: [
      ['cars', 'Cars', 'Automóviles', 'Voitures'],
      ['motorcycles', 'Motorcycles', 'Motocicletas', 'Motos'],
      ['boats', 'Boats', 'Embarcaciones', 'Bateaux'],
      ['recreationalVehicles', 'Recreational Vehicles', 'Vehículos recreativos', 'Véhicules récréatifs'],
      ['bicycles', 'Bicycles', 'Bicicletas', 'Vélos'],
      ['licensePlates', 'License Plates', 'Placas de matrícula', "Plaques d'immatriculation", 'Licence Plates'],
      ['vehicleRegistration', 'Vehicle Registration', 'Registro del vehículo', "Certificat d'immatriculation"],
      ['transitPasses', 'Transit Passes', 'Pases de transporte', 'Titres de transport'],
      OTHER,
    ],
  },
  {
    type: ['legalDocs', 'Legal Documents', 'Documentos legales', 'Documents juridiques'],
    subtypes: [
      ['wills', 'Wills', 'Testamentos', 'Testaments'],
      ['powerOfAttorney', 'Power of Attorney', 'Poder notarial', 'Procuration'],
      ['trusts', 'Trusts', 'Fideicomisos', 'Fiducies'],
      ['contracts', 'Contracts', 'Contratos', 'Contrats'],
      ['courtDocuments', 'Court Documents', 'Documentos judiciales', 'Documents judiciaires'],
      ['divorceDecree', 'Divorce Decree', 'Sentencia de divorcio', 'Jugement de divorce'],
      ['adoptionPapers', 'Adoption Papers', 'Documentos de adopción', "Documents d'adoption"],
      OTHER,
    ],
  },
  {
    type: ['careerEducation', 'Career & Education', 'Carrera y educación', 'Carrière et études'],
    subtypes: [
      ['diplomas', 'Diplomas', 'Diplomas', 'Diplômes'],
      ['transcripts', 'Transcripts', 'Certificados de notas', 'Relevés de notes'],
      ['certifications', 'Certifications', 'Certificaciones', 'Certifications'],
      ['resume', 'Resume', 'Currículum', 'Curriculum vitae'],
      ['employmentContracts', 'Employment Contracts', 'Contratos de trabajo', 'Contrats de travail'],
      ['payStubs', 'Pay Stubs', 'Talones de pago', 'Talons de paie'],
      [
        'professionalLicenses',
        'Professional Licenses',
        'Licencias profesionales',
        'Permis professionnels',
        'Professional Licences',
      ],
      OTHER,
    ],
  },
  {
    type: ['serviceAccounts', 'Service Accounts', 'Cuentas de servicios', 'Comptes de services'],
    subtypes: [
      ['utilities', 'Utilities', 'Servicios públicos', 'Services publics'],
      ['internet', 'Internet', 'Internet', 'Internet'],
      ['mobilePhone', 'Mobile Phone', 'Teléfono móvil', 'Téléphone mobile'],
      ['streaming', 'Streaming Services', 'Servicios de streaming', 'Services de diffusion en continu'],
      ['memberships', 'Memberships', 'Membresías', 'Abonnements'],
      ['onlineAccounts', 'Online Accounts', 'Cuentas en línea', 'Comptes en ligne'],
      ['loyaltyPrograms', 'Loyalty Programs', 'Programas de lealtad', 'Programmes de fidélité', 'Loyalty Programmes'],
      OTHER,
    ],
  },
  {
    type: ['collectibles', 'Collectibles', 'Objetos de colección', 'Objets de collection'],
    subtypes: [
      ['antiques', 'Antiques', 'Antigüedades', 'Antiquités'],
      ['art', 'Art', 'Arte', 'Œuvres d’art'],
      ['jewelry', 'Jewelry', 'Joyería', 'Bijoux', 'Jewellery'],
      ['coins', 'Coins', 'Monedas', 'Pièces de monnaie'],
      ['stamps', 'Stamps', 'Sellos', 'Timbres'],
      ['watches', 'Watches', 'Relojes', 'Montres'],
      ['wine', 'Wine', 'Vinos', 'Vins'],
      ['sportsMemorabilia', 'Sports Memorabilia', 'Recuerdos deportivos', 'Souvenirs sportifs'],
      OTHER,
    ],
  },
  {
    type: ['wishLists', 'Wish Lists', 'Listas de deseos', 'Listes de souhaits'],
    subtypes: [
      ['gifts', 'Gifts', 'Regalos', 'Cadeaux'],
      ['travel', 'Travel', 'Viajes', 'Voyages'],
      ['shopping', 'Shopping', 'Compras', 'Achats'],
      ['experiences', 'Experiences', 'Experiencias', 'Expériences'],
      ['books', 'Books', 'Libros', 'Livres'],
      OTHER,
    ],
  },
];

export function displayValues([, enUS, esUS, frCA, enCA]: CatalogueLabel) {
  return [
    { locale: 'en-CA', value: enCA ?? enUS },
    { locale: 'en-US', value: enUS },
    { locale: 'es-US', value: esUS },
    { locale: 'fr-CA', value: frCA },
  ];
}
