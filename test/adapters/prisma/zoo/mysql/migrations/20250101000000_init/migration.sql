-- CreateTable
CREATE TABLE `accounts` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,
    `email` VARCHAR(191) NOT NULL,
    `name` VARCHAR(191) NULL,
    `role` ENUM('USER', 'admin') NOT NULL DEFAULT 'USER',
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `updated_at` DATETIME(3) NOT NULL,
    `balance` DECIMAL(12, 2) NOT NULL DEFAULT 0,
    `big` BIGINT NULL,
    `avatar` LONGBLOB NULL,
    `profile` JSON NULL,
    `score` DOUBLE NOT NULL DEFAULT 1.5,
    `active` BOOLEAN NOT NULL DEFAULT true,

    UNIQUE INDEX `accounts_email_key`(`email`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `Post` (
    `id` VARCHAR(191) NOT NULL,
    `title` VARCHAR(191) NOT NULL,
    `author_id` INTEGER NOT NULL,
    `slug` VARCHAR(191) NOT NULL,
    `ref` VARCHAR(191) NOT NULL,
    `ref7` VARCHAR(191) NOT NULL,
    `sort_key` VARCHAR(191) NOT NULL,
    `cuid2` VARCHAR(191) NOT NULL,
    `short` VARCHAR(191) NOT NULL,
    `published_at` TIMESTAMP(3) NULL,
    `day` DATE NULL,
    `views` INTEGER NOT NULL DEFAULT 0,

    UNIQUE INDEX `Post_author_id_title_key`(`author_id`, `title`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `Tag` (
    `name` VARCHAR(191) NOT NULL,
    `color` VARCHAR(191) NOT NULL DEFAULT 'red',

    PRIMARY KEY (`name`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `Counter` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,

    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `memberships` (
    `account_id` INTEGER NOT NULL,
    `group_id` INTEGER NOT NULL,
    `since` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    PRIMARY KEY (`account_id`, `group_id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- AddForeignKey
ALTER TABLE `Post` ADD CONSTRAINT `Post_author_id_fkey` FOREIGN KEY (`author_id`) REFERENCES `accounts`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;
